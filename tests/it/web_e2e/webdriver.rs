//! Headless Chromium through chromedriver, driven with the `fantoccini` WebDriver client: the
//! driver process on a free loopback port (killed with its browsers on drop), and a [`Session`]
//! per window with the waits and retries the tests need on a live page.

use std::{
    net::TcpListener,
    os::unix::process::CommandExt,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use fantoccini::{
    actions::{InputSource, KeyAction, KeyActions, MouseActions, PointerAction, MOUSE_BUTTON_LEFT},
    elements::Element,
    error::{CmdError, ErrorStatus},
    wd::{TimeoutConfiguration, WebDriverCompatibleCommand},
    Client, ClientBuilder, Locator,
};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};

/// Where Debian puts the browser and its driver.
pub(super) const CHROMIUM: &str = "/usr/bin/chromium";
/// Debian's chromedriver.
pub(super) const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A running chromedriver on a free loopback port; killed on drop.
pub(super) struct Driver {
    child: Child,
    url: String,
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("an address").port()
}

impl Driver {
    /// Starts chromedriver and waits until it accepts connections.
    pub(super) async fn start() -> Driver {
        let port = free_port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Its own process group, which the browsers it starts join: dropping the driver
            // ends them all, even when a failing test never closed its sessions.
            .process_group(0)
            .spawn()
            .expect("start chromedriver");
        let driver = Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "chromedriver did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        driver
    }

    /// A new headless Chromium window of `width`×`height` CSS pixels.
    pub(super) async fn session(&self, width: u32, height: u32) -> Session {
        let caps = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-quic", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--disable-extensions",
                    "--disable-crash-reporter", "--disable-breakpad",
                    "--hide-scrollbars", "--force-device-scale-factor=1",
                    format!("--window-size={width},{height}"),
                ],
            },
            "goog:loggingPrefs": {"browser": "ALL"},
            "pageLoadStrategy": "normal",
        });
        let Value::Object(caps) = caps else {
            unreachable!("capabilities are an object")
        };
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(caps)
            .connect(&self.url)
            .await
            .unwrap_or_else(|e| panic!("no session: {e}"));
        client
            .update_timeouts(TimeoutConfiguration::new(
                Some(Duration::from_secs(20)),
                Some(Duration::from_secs(30)),
                Some(Duration::ZERO),
            ))
            .await
            .expect("set the timeouts");
        // Set the viewport exactly (the window has borders even when headless).
        client
            .set_window_size(width, height)
            .await
            .expect("set the window size");
        Session { client }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A vendor command of chromedriver's (`POST /session/{id}{path}`), which the WebDriver standard
/// and so fantoccini's typed API do not have: the DevTools protocol and the browser's log.
#[derive(Debug)]
struct VendorCommand {
    path: &'static str,
    body: Value,
}

impl WebDriverCompatibleCommand for VendorCommand {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        let id = session_id.expect("a session");
        base_url.join(&format!("session/{id}{}", self.path))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (http::Method::POST, Some(self.body.to_string()))
    }
}

/// One browser window.
pub(super) struct Session {
    client: Client,
}

/// How long `wait_*` calls wait before failing.
pub(super) const WAIT: Duration = Duration::from_secs(20);

/// Whether a WebDriver error is `status`.
fn is(e: &CmdError, status: ErrorStatus) -> bool {
    matches!(e, CmdError::Standard(w) if w.error == status)
}

impl Session {
    /// Opens a URL and waits for the page to load.
    pub(super) async fn goto(&self, url: &str) {
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("open {url}: {e}"));
    }

    /// Reloads the page.
    pub(super) async fn refresh(&self) {
        self.client.refresh().await.expect("reload the page");
    }

    /// Runs a script (its body, `return …` for a value) with `args` (a JSON array).
    pub(super) async fn exec(&self, script: &str, args: Value) -> Value {
        self.client
            .execute(script, args_of(args))
            .await
            .unwrap_or_else(|e| panic!("script {script}: {e}"))
    }

    /// Runs an asynchronous script: its body calls `arguments[arguments.length - 1](value)`
    /// when done; returns that value.
    pub(super) async fn exec_async(&self, script: &str, args: Value) -> Value {
        self.client
            .execute_async(script, args_of(args))
            .await
            .unwrap_or_else(|e| panic!("async script {script}: {e}"))
    }

    /// Sends a chromedriver vendor command; panics on an error.
    async fn vendor(&self, path: &'static str, body: Value) -> Result<Value, CmdError> {
        self.client.issue_cmd(VendorCommand { path, body }).await
    }

    /// Sends a Chrome DevTools Protocol command (e.g. `Emulation.setEmulatedMedia`).
    pub(super) async fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.vendor("/goog/cdp/execute", json!({"cmd": cmd, "params": params}))
            .await
            .unwrap_or_else(|e| panic!("DevTools {cmd}: {e}"))
    }

    /// A PNG screenshot of the element matching a CSS selector.
    pub(super) async fn element_screenshot(&self, css: &str) -> Vec<u8> {
        self.on_element(css, "screenshot", |el| async move { el.screenshot().await })
            .await
    }

    /// Waits until `expr` (a JavaScript expression) is truthy; returns its value.
    pub(super) async fn wait_for(&self, expr: &str, what: &str) -> Value {
        let script = format!("try {{ return ({expr}); }} catch (e) {{ return null; }}");
        let deadline = Instant::now() + WAIT;
        loop {
            let v = self.exec(&script, json!([])).await;
            let truthy = !(v.is_null() || v == json!(false) || v == json!(0) || v == json!(""));
            if truthy {
                return v;
            }
            if Instant::now() > deadline {
                let body = self
                    .exec("return document.body.innerText.slice(0, 2000);", json!([]))
                    .await;
                let console = self.console().await;
                panic!("timed out waiting for {what} ({expr}); page text:\n{body}\nconsole: {console:#?}");
            }
            tokio::time::sleep(Duration::from_millis(80)).await;
        }
    }

    /// The element matching a CSS selector (waiting for it).
    pub(super) async fn find(&self, css: &str) -> Element {
        let deadline = Instant::now() + WAIT;
        loop {
            match self.client.find(Locator::Css(css)).await {
                Ok(el) => return el,
                Err(e) if is(&e, ErrorStatus::NoSuchElement) => {
                    assert!(Instant::now() < deadline, "no element matches {css}");
                }
                Err(e) => panic!("find {css}: {e}"),
            }
            tokio::time::sleep(Duration::from_millis(80)).await;
        }
    }

    /// Runs `command` on the element matching a CSS selector, found again and retried while a
    /// live page replaces the element between the two calls (a stale element).
    async fn on_element<T, F, Fut>(&self, css: &str, what: &str, command: F) -> T
    where
        F: Fn(Element) -> Fut,
        Fut: std::future::Future<Output = Result<T, CmdError>>,
    {
        let deadline = Instant::now() + WAIT;
        loop {
            match command(self.find(css).await).await {
                Ok(v) => return v,
                Err(e)
                    if Instant::now() < deadline && is(&e, ErrorStatus::StaleElementReference) =>
                {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("{what} of {css}: {e}"),
            }
        }
    }

    /// Clicks the element matching a CSS selector, as a user would (pointer events at its
    /// centre; fails when something covers it).
    pub(super) async fn click(&self, css: &str) {
        let deadline = Instant::now() + WAIT;
        loop {
            // Found again on each try: a live page may replace the element meanwhile.
            match self.find(css).await.click().await {
                Ok(()) => return,
                Err(e)
                    if Instant::now() < deadline
                        && (is(&e, ErrorStatus::ElementNotInteractable)
                            || is(&e, ErrorStatus::StaleElementReference)
                            || is(&e, ErrorStatus::ElementClickIntercepted)) =>
                {
                    if is(&e, ErrorStatus::ElementClickIntercepted) {
                        // WebDriver scrolls an element only until it is in the viewport, where
                        // the page's sticky header may still cover it: bring it to the middle,
                        // as a user scrolls to what they want to click.
                        let _ = self
                            .client
                            .execute(
                                "const e = document.querySelector(arguments[0]); if (e) e.scrollIntoView({block: 'center', inline: 'nearest'});",
                                vec![serde_json::json!(css)],
                            )
                            .await;
                    }
                    tokio::time::sleep(Duration::from_millis(80)).await;
                }
                Err(e) => panic!("click on {css}: {e}"),
            }
        }
    }

    /// Types text into the element matching a CSS selector (after clearing it).
    pub(super) async fn type_into(&self, css: &str, text: &str) {
        let el = self.find(css).await;
        el.clear()
            .await
            .unwrap_or_else(|e| panic!("clear {css}: {e}"));
        el.send_keys(text)
            .await
            .unwrap_or_else(|e| panic!("type into {css}: {e}"));
    }

    /// Presses and releases each key in turn (WebDriver key codes such as `'\u{E007}'`, Enter)
    /// on the focused element.
    pub(super) async fn press_keys(&self, keys: &[char]) {
        let mut actions = KeyActions::new("keyboard".to_string());
        for &value in keys {
            actions = actions
                .then(KeyAction::Down { value })
                .then(KeyAction::Up { value });
        }
        self.client
            .perform_actions(actions)
            .await
            .expect("key presses");
    }

    /// Drags with the mouse from the centre of the element matching `from` to that of `to`.
    pub(super) async fn drag(&self, from: &str, to: &str) {
        let (from, to) = (self.find(from).await, self.find(to).await);
        let move_to = |element| PointerAction::MoveToElement {
            element,
            duration: Some(Duration::from_millis(120)),
            x: 0.0,
            y: 0.0,
        };
        let actions = MouseActions::new("mouse".to_string())
            .then(move_to(from))
            .then(PointerAction::Down {
                button: MOUSE_BUTTON_LEFT,
            })
            .then(move_to(to))
            .then(PointerAction::Up {
                button: MOUSE_BUTTON_LEFT,
            });
        self.client
            .perform_actions(actions)
            .await
            .expect("drag and drop");
    }

    /// The visible text of the element matching a CSS selector.
    pub(super) async fn text(&self, css: &str) -> String {
        self.on_element(css, "text", |el| async move { el.text().await })
            .await
    }

    /// Saves a PNG screenshot of the viewport.
    pub(super) async fn screenshot(&self, path: &std::path::Path) {
        let png = self.client.screenshot().await.expect("a screenshot");
        assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("screenshot directory");
        }
        std::fs::write(path, png).expect("write the screenshot");
    }

    /// The browser console entries since the last call (`{level, message, …}`).
    pub(super) async fn console(&self) -> Vec<Value> {
        self.vendor("/se/log", json!({"type": "browser"}))
            .await
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
    }

    /// Ends the session (closes the browser).
    pub(super) async fn quit(&self) {
        let _ = self.client.clone().close().await;
    }
}

/// A script's arguments: the elements of a JSON array.
fn args_of(args: Value) -> Vec<Value> {
    match args {
        Value::Array(items) => items,
        other => panic!("script arguments are an array: {other}"),
    }
}
