//! Browser tests: headless Chromium (Debian's package, installed by `.ci/run`) driven over
//! WebDriver by `common::webdriver`. First the harness itself against a static page served by
//! a tiny loopback server in the test; then the web view's pages on the real `cogmem serve`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::Duration;

use serde_json::json;

use crate::common::webdriver::Browser;

/// Answers one request on `stream` from `pages` (path, content type, body).
fn answer(mut stream: std::net::TcpStream, pages: &[(&str, &str, &str)]) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut first = String::new();
    if reader.read_line(&mut first).is_err() {
        return;
    }
    // Read the rest of the head; the pages are GETs without a body.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let path = first.split(' ').nth(1).unwrap_or("/");
    let (status, kind, body) = match pages.iter().find(|p| p.0 == path) {
        Some((_, kind, body)) => ("200 OK", *kind, *body),
        None => ("404 Not Found", "text/plain", "no such page"),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}; charset=utf-8\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.flush();
}

/// Serves a few fixed pages on a loopback port from a thread, for the harness's own test.
fn static_site(pages: &'static [(&'static str, &'static str, &'static str)]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            // One thread per connection: a browser opens spare connections it may never use.
            std::thread::spawn(move || answer(stream, pages));
        }
    });
    url
}

const PAGE: &str = r#"<!doctype html><html><head><title>Harness</title></head><body>
<input id="name"><button id="go">Go</button><p id="out">nothing yet</p>
<a id="next" href="/next">next</a><ul><li class="item">a</li><li class="item">b</li></ul>
<script src="/app.js"></script></body></html>"#;
const APP: &str = r#"document.getElementById('go').addEventListener('click', function () {
  document.getElementById('out').textContent = 'hello ' + document.getElementById('name').value;
});"#;
const NEXT: &str = r#"<!doctype html><html><head><title>Next</title></head><body>
<p id="here">second page</p><script src="/broken.js"></script></body></html>"#;
const BROKEN: &str = "console.error('boom from the page'); undefinedFunction();";

#[test]
fn the_harness_drives_a_real_browser_on_a_static_page() {
    let url = static_site(&[
        ("/", "text/html", PAGE),
        ("/app.js", "text/javascript", APP),
        ("/next", "text/html", NEXT),
        ("/broken.js", "text/javascript", BROKEN),
        ("/favicon.ico", "image/x-icon", ""),
    ]);
    let b = Browser::start();
    b.navigate(&format!("{url}/"));
    assert_eq!(b.title(), "Harness");
    assert_eq!(b.find_all(".item").len(), 2);
    assert!(b.find("#absent").is_none());
    let name = b.wait_for("#name", Duration::from_secs(5));
    b.type_text(&name, "Ada <b>");
    b.click(&b.find("#go").unwrap());
    let out = b.find("#out").unwrap();
    assert_eq!(b.text(&out), "hello Ada <b>");
    assert_eq!(b.execute("return arguments[0] + 1", &[json!(41)]), json!(42));
    assert_eq!(b.attribute(&b.find("#next").unwrap(), "href").as_deref(), Some("/next"));
    let png = b.screenshot();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 1000, "{} bytes", png.len());
    let errors = b.console_errors();
    assert!(errors.is_empty(), "a clean page logs no error: {errors:?}");
    // A page that fails is seen failing: the checks on our pages can fail.
    b.click(&b.find("#next").unwrap());
    b.wait_for("#here", Duration::from_secs(5));
    assert!(b.url().ends_with("/next"), "{}", b.url());
    let errors = b.console_errors().join("\n");
    assert!(errors.contains("boom from the page"), "{errors}");
    assert!(errors.contains("undefinedFunction"), "{errors}");
}
