//! The real `cogmem serve` on loopback, for HTTP tests: started on port 0, its URL read from
//! stdout, and a small HTTP/1.1 client over `std::net` that sends requests as written (so a
//! test can send any Host or Origin header).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::TestEnv;

/// The longest a test waits for the server to start or answer.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// A running `cogmem serve`; killed when dropped.
pub struct WebServer {
    pub child: Child,
    /// What it printed on stdout: the URL with the token.
    pub url: String,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// The access token.
    pub token: String,
    /// What it printed on stderr and stdout after the URL, line by line.
    pub lines: mpsc::Receiver<String>,
}

/// One HTTP response.
#[derive(Debug)]
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    /// The first value of a header (name in any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

impl WebServer {
    /// Starts `cogmem serve --addr 127.0.0.1:0 --user tester ARGS` in the workspace and waits
    /// for its URL.
    pub fn start(env: &TestEnv, args: &[&str]) -> Self {
        let mut all = vec!["serve", "--addr", "127.0.0.1:0", "--user", "tester"];
        all.extend_from_slice(args);
        Self::spawn(env, &all).unwrap_or_else(|seen| panic!("the server did not start: {seen:#?}"))
    }

    /// Runs `cogmem ARGS` and waits for the URL line; `Err` holds what it printed instead.
    pub fn spawn(env: &TestEnv, args: &[&str]) -> Result<Self, Vec<String>> {
        let mut child = env
            .run(args)
            .into_command()
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cogmem runs");
        let lines = super::lines_of(&mut child);
        let mut seen = Vec::new();
        loop {
            match lines.recv_timeout(TIMEOUT) {
                Ok(line) => {
                    if let Some(url) = line.strip_prefix("stdout: ") {
                        let url = url.to_owned();
                        let rest = url.strip_prefix("http://").expect("an http URL");
                        let (addr, query) = rest.split_once("/?token=").expect("URL with token");
                        let (addr, token) = (addr.to_owned(), query.to_owned());
                        return Ok(Self { child, url, addr, token, lines });
                    }
                    seen.push(line);
                }
                Err(_) => {
                    let _ = child.kill();
                    let status = child.wait().ok();
                    seen.push(format!("exit: {status:?}"));
                    return Err(seen);
                }
            }
        }
    }

    /// The port the server listens on.
    pub fn port(&self) -> &str {
        self.addr.rsplit_once(':').unwrap().1
    }

    /// The cookie the first visit sets: `cogmem_token_PORT=TOKEN`.
    pub fn cookie(&self) -> String {
        format!("cogmem_token_{}={}", self.port(), self.token)
    }

    /// `GET path` with the cookie.
    pub fn get(&self, path: &str) -> HttpResponse {
        self.send("GET", path, &[("Cookie", &self.cookie())], "")
    }

    /// A request with the right Host header, `Connection: close`, the given headers and body.
    pub fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> HttpResponse {
        let mut raw = format!("{method} {path} HTTP/1.1\r\nHost: {}\r\n", self.addr);
        for (k, v) in headers {
            raw.push_str(&format!("{k}: {v}\r\n"));
        }
        if !body.is_empty() || method == "POST" {
            raw.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        raw.push_str("Connection: close\r\n\r\n");
        raw.push_str(body);
        self.raw(&raw)
    }

    /// Sends `raw` as it is and reads the whole response (the request must ask for
    /// `Connection: close`).
    pub fn raw(&self, raw: &str) -> HttpResponse {
        let mut stream = TcpStream::connect(&self.addr).expect("connect to the server");
        stream.write_all(raw.as_bytes()).unwrap();
        // Read to the close, but never for longer than TIMEOUT in all (a response that never
        // ends, such as an event stream, fails the test instead of hanging it).
        let (bytes, ended) = read_for(&mut stream, TIMEOUT, |_| false);
        assert!(
            ended,
            "the response did not end within {TIMEOUT:?}: {}",
            String::from_utf8_lossy(&bytes[..bytes.len().min(2000)])
        );
        parse(&bytes)
    }

    /// Sends SIGTERM and returns the exit code.
    pub fn terminate(self) -> Option<i32> {
        self.terminate_with_lines().0
    }

    /// Sends SIGTERM; returns the exit code and every line printed after the URL
    /// (`stdout: …`, `stderr: …`), until the output closed.
    pub fn terminate_with_lines(mut self) -> (Option<i32>, Vec<String>) {
        let ok = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        assert!(ok.unwrap().success());
        let code = self.child.wait().unwrap().code();
        let mut seen = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(TIMEOUT) {
            seen.push(line);
        }
        (code, seen)
    }
}

impl Drop for WebServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads from `stream` until `done` holds for what was read, the peer closes, or `limit`
/// passes; returns what was read and whether it ended before the limit.
pub fn read_for(
    stream: &mut TcpStream,
    limit: Duration,
    done: impl Fn(&[u8]) -> bool,
) -> (Vec<u8>, bool) {
    stream.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    let started = std::time::Instant::now();
    let mut bytes = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    while !done(&bytes) {
        if started.elapsed() >= limit {
            return (bytes, false);
        }
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => bytes.extend_from_slice(&buf[..n]),
            // A signal (a child process of the test ending, with a SIGCHLD handler installed by
            // a crate that waits with a timeout) interrupts the read: read again.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock
                        | std::io::ErrorKind::TimedOut
                        | std::io::ErrorKind::Interrupted
                ) => {}
            Err(e) => panic!("reading from the server: {e}"),
        }
    }
    (bytes, true)
}

/// Parses a whole HTTP/1.1 response (with a `Content-Length`, chunked, or up to the close).
pub fn parse(bytes: &[u8]) -> HttpResponse {
    let split = bytes.windows(4).position(|w| w == b"\r\n\r\n").expect("a header block");
    let head = String::from_utf8_lossy(&bytes[..split]).into_owned();
    let mut body = &bytes[split + 4..];
    let mut lines = head.lines();
    let status_line = lines.next().unwrap();
    let status: u16 = status_line.split_whitespace().nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let chunked = headers.iter().any(|(k, v)| {
        k.eq_ignore_ascii_case("transfer-encoding") && v.eq_ignore_ascii_case("chunked")
    });
    let mut decoded = Vec::new();
    if chunked {
        loop {
            let end = body.windows(2).position(|w| w == b"\r\n").expect("a chunk size");
            let size = usize::from_str_radix(
                String::from_utf8_lossy(&body[..end]).split(';').next().unwrap().trim(),
                16,
            )
            .unwrap();
            if size == 0 {
                break;
            }
            decoded.extend_from_slice(&body[end + 2..end + 2 + size]);
            body = &body[end + 2 + size + 2..];
        }
    } else {
        decoded.extend_from_slice(body);
    }
    HttpResponse { status, headers, body: String::from_utf8_lossy(&decoded).into_owned() }
}
