//! A small W3C WebDriver client over awc (already a dependency): enough to drive headless
//! Chromium through chromedriver — sessions, navigation, clicks, scripts, screenshots and the
//! browser's console log. No TLS, no extra crates.

use std::{
    net::TcpListener,
    os::unix::process::CommandExt,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::{json, Value};

/// The W3C key of an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Where Debian puts the browser and its driver.
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// Debian's chromedriver.
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// A running chromedriver on a free loopback port; killed on drop.
pub struct Driver {
    child: Child,
    url: String,
    client: awc::Client,
}

fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("an address").port()
}

fn client() -> awc::Client {
    awc::Client::builder()
        .timeout(Duration::from_secs(90))
        .finish()
}

impl Driver {
    /// Starts chromedriver and waits until it is ready.
    pub async fn start() -> Driver {
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
            client: client(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(mut resp) = driver
                .client
                .get(format!("{}/status", driver.url))
                .send()
                .await
            {
                if let Ok(v) = resp.json::<Value>().await {
                    if v["value"]["ready"] == json!(true) {
                        return driver;
                    }
                }
            }
            assert!(Instant::now() < deadline, "chromedriver did not start");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// A new headless Chromium window of `width`×`height` CSS pixels.
    pub async fn session(&self, width: u32, height: u32) -> Session {
        let caps = json!({
            "capabilities": {
                "alwaysMatch": {
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
                }
            }
        });
        let mut resp = self
            .client
            .post(format!("{}/session", self.url))
            .send_json(&caps)
            .await
            .expect("new session request");
        let v: Value = resp.json().limit(1 << 20).await.expect("session JSON");
        let id = v["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {v}"))
            .to_string();
        let session = Session {
            client: self.client.clone(),
            url: format!("{}/session/{id}", self.url),
        };
        session
            .cmd(
                "POST",
                "/timeouts",
                Some(json!({"script": 20000, "pageLoad": 30000, "implicit": 0})),
            )
            .await;
        // Set the viewport exactly (the window has borders even when headless).
        session
            .cmd(
                "POST",
                "/window/rect",
                Some(json!({"width": width, "height": height})),
            )
            .await;
        session
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

/// One browser window.
pub struct Session {
    client: awc::Client,
    url: String,
}

/// How long `wait_*` calls wait before failing.
pub const WAIT: Duration = Duration::from_secs(20);

impl Session {
    /// Sends a WebDriver command; returns its `value`, panics on a WebDriver error.
    pub async fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.try_cmd(method, path, body)
            .await
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"))
    }

    /// Sends a WebDriver command; `Err` with the driver's message on failure.
    pub async fn try_cmd(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, String> {
        let url = format!("{}{path}", self.url);
        let req = match method {
            "GET" => self.client.get(url),
            "DELETE" => self.client.delete(url),
            _ => self.client.post(url),
        };
        let mut resp = match body {
            Some(b) => req.send_json(&b).await,
            None if method == "POST" => req.send_json(&json!({})).await,
            None => req.send().await,
        }
        .map_err(|e| format!("request failed: {e}"))?;
        let status = resp.status();
        let v: Value = resp
            .json()
            .limit(64 << 20)
            .await
            .map_err(|e| format!("bad JSON answer: {e}"))?;
        if !status.is_success() {
            return Err(format!(
                "{status}: {} {}",
                v["value"]["error"], v["value"]["message"]
            ));
        }
        Ok(v["value"].clone())
    }

    /// Opens a URL and waits for the page to load.
    pub async fn goto(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url }))).await;
    }

    /// Reloads the page.
    pub async fn refresh(&self) {
        self.cmd("POST", "/refresh", None).await;
    }

    /// Runs a script (its body, `return …` for a value) with `args`.
    pub async fn exec(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
        .await
    }

    /// Runs an asynchronous script: its body calls `arguments[arguments.length - 1](value)`
    /// when done; returns that value.
    pub async fn exec_async(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/async",
            Some(json!({ "script": script, "args": args })),
        )
        .await
    }

    /// Sends a Chrome DevTools Protocol command (e.g. `Emulation.setEmulatedMedia`).
    pub async fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.cmd(
            "POST",
            "/goog/cdp/execute",
            Some(json!({"cmd": cmd, "params": params})),
        )
        .await
    }

    /// A PNG screenshot of the element matching a CSS selector, as base64 text.
    pub async fn element_screenshot(&self, css: &str) -> String {
        self.on_element(css, "GET", "screenshot")
            .await
            .as_str()
            .expect("base64 text")
            .to_string()
    }

    /// Waits until `expr` (a JavaScript expression) is truthy; returns its value.
    pub async fn wait_for(&self, expr: &str, what: &str) -> Value {
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
    pub async fn find(&self, css: &str) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let found = self
                .try_cmd(
                    "POST",
                    "/element",
                    Some(json!({"using": "css selector", "value": css})),
                )
                .await;
            if let Ok(v) = found {
                if let Some(id) = v[ELEMENT].as_str() {
                    return id.to_string();
                }
            }
            assert!(Instant::now() < deadline, "no element matches {css}");
            tokio::time::sleep(Duration::from_millis(80)).await;
        }
    }

    /// Sends `/element/{id}/{command}` to the element matching a CSS selector, found again and
    /// retried while a live page replaces the element between the two calls (a stale element).
    async fn on_element(&self, css: &str, method: &str, command: &str) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let id = self.find(css).await;
            match self
                .try_cmd(method, &format!("/element/{id}/{command}"), None)
                .await
            {
                Ok(v) => return v,
                Err(e) if Instant::now() < deadline && e.contains("stale element") => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("{command} of {css}: {e}"),
            }
        }
    }

    /// Clicks the element matching a CSS selector, as a user would (pointer events at its
    /// centre; fails when something covers it).
    pub async fn click(&self, css: &str) {
        let deadline = Instant::now() + WAIT;
        loop {
            // Found again on each try: a live page may replace the element meanwhile.
            let id = self.find(css).await;
            match self
                .try_cmd("POST", &format!("/element/{id}/click"), None)
                .await
            {
                Ok(_) => return,
                Err(e)
                    if Instant::now() < deadline
                        && (e.contains("not interactable")
                            || e.contains("stale element")
                            || e.contains("click intercepted")) =>
                {
                    tokio::time::sleep(Duration::from_millis(80)).await;
                }
                Err(e) => panic!("click on {css}: {e}"),
            }
        }
    }

    /// Types text into the element matching a CSS selector (after clearing it).
    pub async fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css).await;
        self.cmd("POST", &format!("/element/{id}/clear"), None)
            .await;
        self.cmd(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        )
        .await;
    }

    /// The visible text of the element matching a CSS selector.
    pub async fn text(&self, css: &str) -> String {
        self.on_element(css, "GET", "text")
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Saves a PNG screenshot of the viewport.
    pub async fn screenshot(&self, path: &std::path::Path) {
        let v = self.cmd("GET", "/screenshot", None).await;
        let png = base64_decode(v.as_str().expect("base64 text"));
        assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("screenshot directory");
        }
        std::fs::write(path, png).expect("write the screenshot");
    }

    /// The browser console entries since the last call (`{level, message, …}`).
    pub async fn console(&self) -> Vec<Value> {
        self.try_cmd("POST", "/se/log", Some(json!({"type": "browser"})))
            .await
            .ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
    }

    /// Ends the session (closes the browser).
    pub async fn quit(&self) {
        let _ = self.try_cmd("DELETE", "", None).await;
    }
}

/// Standard base64 (with padding) to bytes.
pub fn base64_decode(text: &str) -> Vec<u8> {
    fn value(c: u8) -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some((c - b'A') as u32),
            b'a'..=b'z' => Some((c - b'a') as u32 + 26),
            b'0'..=b'9' => Some((c - b'0') as u32 + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    }
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        let Some(v) = value(c) else { continue };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

#[test]
fn base64_round_trip() {
    assert_eq!(base64_decode("aGVsbG8="), b"hello");
    assert_eq!(base64_decode("iVBORw0K"), b"\x89PNG\r\n");
}
