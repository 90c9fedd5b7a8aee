//! A small W3C WebDriver client for the browser tests: starts Debian's `chromedriver` on a
//! free loopback port, opens a headless Chromium session in a fresh profile, and speaks plain
//! HTTP/1.1 + JSON to it over `std::net` (navigate, find, click, type, read text, run a
//! script, take a screenshot, read the browser's console). The session ends and the driver is
//! killed when the [`Browser`] is dropped, even when a test fails.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};

/// Where `scripts/test` installs them (Debian's `chromium` and `chromium-driver`).
pub const CHROMIUM: &str = "/usr/bin/chromium";
/// The driver.
pub const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The key W3C WebDriver gives an element reference under.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A headless Chromium driven over WebDriver.
pub struct Browser {
    /// One browser at a time: two cores cannot draw pages for several within the timeouts.
    _turn: std::sync::MutexGuard<'static, ()>,
    driver: Child,
    port: u16,
    session: String,
    _profile: tempfile::TempDir,
}

/// An element found on the page.
#[derive(Debug, Clone)]
pub struct Element(String);

impl Browser {
    /// Starts chromedriver and a headless Chromium session (the flags of the web plan: no
    /// sandbox, GPU, QUIC, first-run, background networking, component updates or sync).
    ///
    /// Panics, saying what to install, when Chromium or chromedriver is missing.
    pub fn start() -> Self {
        for tool in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                Path::new(tool).exists(),
                "{tool} is missing: the browser tests need Debian's Chromium; install it with \
                 `apt-get install chromium chromium-driver` (as scripts/test does)"
            );
        }
        static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let turn = TURN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let profile = tempfile::tempdir().expect("a temp folder for the browser profile");
        let port = free_port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let mut browser =
            Self { _turn: turn, driver, port, session: String::new(), _profile: profile };
        let ready = super::wait_until(Duration::from_secs(20), || {
            browser.call("GET", "/status", None).is_ok_and(|v| v["ready"] == true)
        });
        assert!(ready, "chromedriver did not answer on 127.0.0.1:{port} within 20 s");
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1280,900",
        ]
        .iter()
        .map(|a| a.to_string())
        .chain([format!("--user-data-dir={}", browser._profile.path().display())])
        .collect::<Vec<_>>();
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args},
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let v = browser.ok("POST", "/session", Some(caps));
        browser.session =
            v["sessionId"].as_str().expect("a session id from chromedriver").to_owned();
        browser
    }

    /// One WebDriver command: the JSON answer, or the error WebDriver gave (`error`, `message`).
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut stream = loop {
            match TcpStream::connect(("127.0.0.1", self.port)) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                other => break other.map_err(|e| e.to_string())?,
            }
        };
        stream.set_read_timeout(Some(Duration::from_secs(60))).map_err(|e| e.to_string())?;
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.port,
            body.len()
        )
        .map_err(|e| e.to_string())?;
        let raw = read_answer(&mut stream).map_err(|e| e.to_string())?;
        let answer = super::web::parse(&raw);
        let (status, body) = (answer.status, answer.body);
        let v: Value = serde_json::from_str(&body).map_err(|e| format!("{e}: {body:?}"))?;
        if status >= 400 {
            return Err(format!(
                "{method} {path} → {status} {}: {}",
                v["value"]["error"], v["value"]["message"]
            ));
        }
        Ok(v["value"].clone())
    }

    /// A command that must succeed.
    fn ok(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.call(method, path, body).unwrap_or_else(|e| panic!("webdriver: {e}"))
    }

    /// A command on this session.
    fn on(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    /// Opens a URL and waits for the page to load.
    pub fn navigate(&self, url: &str) {
        self.on("POST", "/url", Some(json!({"url": url}))).unwrap_or_else(|e| panic!("{e}"));
    }

    /// The page's URL now.
    pub fn url(&self) -> String {
        self.on("GET", "/url", None).unwrap_or_default().as_str().unwrap_or("").to_owned()
    }

    /// The page's title.
    pub fn title(&self) -> String {
        self.on("GET", "/title", None).unwrap_or_default().as_str().unwrap_or("").to_owned()
    }

    /// The first element matching a CSS selector, if any.
    pub fn find(&self, css: &str) -> Option<Element> {
        let v = self.on("POST", "/element", Some(json!({"using": "css selector", "value": css})));
        v.ok().and_then(|v| v[ELEMENT].as_str().map(|id| Element(id.to_owned())))
    }

    /// Every element matching a CSS selector.
    pub fn find_all(&self, css: &str) -> Vec<Element> {
        let v = self.on("POST", "/elements", Some(json!({"using": "css selector", "value": css})));
        let v = v.unwrap_or_else(|e| panic!("{e}"));
        v.as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .filter_map(|e| e[ELEMENT].as_str().map(|id| Element(id.to_owned())))
            .collect()
    }

    /// The first element matching `css`, waiting up to `timeout` for it to appear.
    pub fn wait_for(&self, css: &str, timeout: Duration) -> Element {
        let start = Instant::now();
        loop {
            if let Some(e) = self.find(css) {
                return e;
            }
            assert!(
                start.elapsed() < timeout,
                "no element matches `{css}` after {timeout:?} on {}\n{}",
                self.url(),
                self.execute("return document.body ? document.body.innerText : ''", &[])
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Clicks an element.
    pub fn click(&self, e: &Element) {
        self.on("POST", &format!("/element/{}/click", e.0), Some(json!({})))
            .unwrap_or_else(|err| panic!("{err}"));
    }

    /// Clicks at `(x, y)` pixels from the top left corner of an element, as a mouse does (for
    /// what is drawn on a canvas).
    pub fn click_at(&self, e: &Element, x: f64, y: f64) {
        let rect = self.on("GET", &format!("/element/{}/rect", e.0), None);
        let rect = rect.unwrap_or_else(|err| panic!("{err}"));
        let (w, h) =
            (rect["width"].as_f64().unwrap_or(0.0), rect["height"].as_f64().unwrap_or(0.0));
        // WebDriver's offsets count from the element's centre.
        let (dx, dy) = ((x - w / 2.0).round() as i64, (y - h / 2.0).round() as i64);
        let actions = json!({"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [
                {"type": "pointerMove", "duration": 0, "origin": {ELEMENT: e.0}, "x": dx, "y": dy},
                {"type": "pointerDown", "button": 0},
                {"type": "pause", "duration": 50},
                {"type": "pointerUp", "button": 0},
            ],
        }]});
        self.on("POST", "/actions", Some(actions)).unwrap_or_else(|err| panic!("{err}"));
        let _ = self.on("DELETE", "/actions", None);
    }

    /// Types into an element.
    pub fn type_text(&self, e: &Element, text: &str) {
        self.on("POST", &format!("/element/{}/value", e.0), Some(json!({"text": text})))
            .unwrap_or_else(|err| panic!("{err}"));
    }

    /// An element's rendered text.
    pub fn text(&self, e: &Element) -> String {
        let v = self.on("GET", &format!("/element/{}/text", e.0), None);
        v.unwrap_or_else(|err| panic!("{err}")).as_str().unwrap_or("").to_owned()
    }

    /// An element's attribute.
    pub fn attribute(&self, e: &Element, name: &str) -> Option<String> {
        let v = self.on("GET", &format!("/element/{}/attribute/{name}", e.0), None);
        v.ok().and_then(|v| v.as_str().map(str::to_owned))
    }

    /// Runs a script in the page (`return …` gives its value back); `args` are its arguments.
    pub fn execute(&self, script: &str, args: &[Value]) -> Value {
        self.on("POST", "/execute/sync", Some(json!({"script": script, "args": args})))
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Waits until a script returns `true`, up to `timeout`.
    pub fn wait_script(&self, script: &str, timeout: Duration) -> bool {
        super::wait_until(timeout, || self.execute(script, &[]) == Value::Bool(true))
    }

    /// A screenshot of the window, as PNG bytes.
    pub fn screenshot(&self) -> Vec<u8> {
        let v = self.on("GET", "/screenshot", None).unwrap_or_else(|e| panic!("{e}"));
        base64::engine::general_purpose::STANDARD
            .decode(v.as_str().unwrap_or(""))
            .expect("WebDriver sends the screenshot in base64")
    }

    /// The messages of level SEVERE the browser logged since the last call: uncaught
    /// exceptions, `console.error`, refused loads and content-security-policy violations.
    pub fn console_errors(&self) -> Vec<String> {
        self.console().into_iter().filter(|(level, _)| level == "SEVERE").map(|(_, m)| m).collect()
    }

    /// Every message the browser logged since the last call, of any level (`console.warn` and
    /// `console.log` too), as `LEVEL message`.
    pub fn console_messages(&self) -> Vec<String> {
        self.console().into_iter().map(|(level, m)| format!("{level} {m}")).collect()
    }

    /// The browser's log since the last call (reading it empties it): (level, message).
    fn console(&self) -> Vec<(String, String)> {
        let v = self.on("POST", "/se/log", Some(json!({"type": "browser"})));
        v.ok()
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
            .iter()
            .map(|m| {
                let text = |k: &str| m[k].as_str().unwrap_or("").to_owned();
                (text("level"), text("message"))
            })
            .collect()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.call("DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// A loopback port nobody listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// Reads one HTTP/1.1 answer: its head, then `Content-Length` bytes, or chunks up to the last
/// one, or (with neither) up to the end of the stream. Chromedriver may keep the connection
/// open, so the answer's own length says where it ends.
fn read_answer(stream: &mut TcpStream) -> std::io::Result<Vec<u8>> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        if let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|n| n.trim().parse::<usize>().ok());
            let done = match length {
                Some(n) => raw.len() >= end + 4 + n,
                None if head.contains("chunked") => raw.ends_with(b"0\r\n\r\n"),
                None => false,
            };
            if done {
                return Ok(raw);
            }
        }
        match stream.read(&mut buf) {
            Ok(0) => return Ok(raw),
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            // A signal (a child process of the test ending) interrupts the wait: wait again.
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}
