//! Browser tests: headless Chromium (Debian's package, installed by `.ci/run`) driven over
//! WebDriver by `common::webdriver`. First the harness itself against a static page served by
//! a tiny loopback server in the test; then the web view's pages on the real `cogmem serve`.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::Duration;

use serde_json::json;

use crate::common::TestEnv;
use crate::common::web::WebServer;
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

// ---------------------------------------------------------------------------------------------
// The web view on the real `cogmem serve`.

/// How long a page may take to draw in a test (debug build, shared machine).
const DRAWN: Duration = Duration::from_secs(30);

/// The server on `env` and a browser that has visited its token URL (so it holds the cookie).
fn open(env: &TestEnv) -> (WebServer, Browser) {
    let server = WebServer::start(env, &[]);
    let b = Browser::start();
    b.navigate(&server.url);
    (server, b)
}

/// The page's address on `server`.
fn at(server: &WebServer, path: &str) -> String {
    format!("http://{}{path}", server.addr)
}

/// The small graph of the graph view's tests: Alice lived in Lisbon, then Porto; Bob works on
/// Atlas, which uses Rust; Alice and Bob are friends.
fn small_graph() -> TestEnv {
    crate::graph_view::small()
}

/// Waits until the graph page has drawn what it asked the API for.
fn drawn(b: &Browser, loads: u64) {
    let script = format!(
        "return window.cogmemGraph !== undefined && window.cogmemGraph.ready \
         && window.cogmemGraph.loads >= {loads}"
    );
    assert!(
        b.wait_script(&script, DRAWN),
        "the graph was not drawn: {}",
        b.execute("return document.getElementById('graph-status').textContent", &[])
    );
}

/// The ids of the entity nodes drawn, sorted.
fn drawn_ids(b: &Browser) -> Vec<String> {
    let v = b.execute("return window.cogmemGraph.cy.nodes().map(n => n.id()).sort()", &[]);
    serde_json::from_value(v).unwrap()
}

/// The relations drawn, as `from relation to`, sorted.
fn drawn_edges(b: &Browser) -> Vec<String> {
    let v = b.execute(
        "return window.cogmemGraph.cy.edges().map(e => \
         `${e.source().id()} ${e.data('relation')} ${e.target().id()}`).sort()",
        &[],
    );
    serde_json::from_value(v).unwrap()
}

/// Clicks the node drawn for `id` on the canvas, where it is drawn.
fn click_node(b: &Browser, id: &str) {
    let p = b.execute(
        "const n = window.cogmemGraph.cy.getElementById(arguments[0]); \
         return n.nonempty() ? n.renderedPosition() : null",
        &[json!(id)],
    );
    assert!(!p.is_null(), "{id} is not drawn: {:?}", drawn_ids(b));
    let canvas = b.find("#graph").unwrap();
    b.click_at(&canvas, p["x"].as_f64().unwrap(), p["y"].as_f64().unwrap());
}

/// Nothing in the browser's console, of any level (a library's warning counts: a page that
/// is well logs nothing), and no error our scripts caught.
fn assert_no_errors(b: &Browser, page: &str) {
    let mut errors = b.console_messages();
    let caught = b.execute("return window.__errors || []", &[]);
    errors.extend(caught.as_array().into_iter().flatten().map(|e| e.to_string()));
    assert!(errors.is_empty(), "{page} logged errors: {errors:#?}");
}

#[test]
fn the_overview_loads_without_errors() {
    let env = small_graph();
    let (server, b) = open(&env);
    b.navigate(&at(&server, "/"));
    b.wait_for("main h1", DRAWN);
    assert_eq!(b.text(&b.find("main h1").unwrap()), "Overview");
    assert_no_errors(&b, "/");
}

#[test]
fn the_graph_page_draws_each_relation_once_and_opens_an_entity_from_its_node() {
    let env = small_graph();
    let (server, b) = open(&env);
    b.navigate(&at(&server, "/graph"));
    drawn(&b, 1);
    assert_eq!(
        drawn_ids(&b),
        [
            "person--alice",
            "person--bob",
            "place--lisbon",
            "place--porto",
            "project--atlas",
            "tool--rust"
        ]
    );
    assert_eq!(
        drawn_edges(&b),
        [
            "person--alice friend-of person--bob",
            "person--alice lives-in place--porto",
            "person--bob works-on project--atlas",
            "project--atlas uses tool--rust",
        ]
    );
    let status = b.text(&b.find("#graph-status").unwrap());
    assert!(status.starts_with("6 entities, 4 relations"), "{status}");
    // The filters list what the graph holds.
    let types: Vec<String> = b
        .find_all("#graph-type option")
        .iter()
        .map(|o| b.attribute(o, "value").unwrap_or_default())
        .collect();
    assert_eq!(types, ["", "person", "place", "project", "tool"]);
    // A click on a node on the canvas selects it; its link opens the entity's page.
    click_node(&b, "person--alice");
    let side = b.wait_for("#graph-side h2", DRAWN);
    assert_eq!(b.text(&side), "alice");
    let link = b.find("#graph-open").unwrap();
    assert_eq!(b.attribute(&link, "href").as_deref(), Some("/entity/person--alice"));
    assert_no_errors(&b, "/graph");
    b.click(&link);
    assert!(
        b.wait_script("return location.pathname === '/entity/person--alice'", DRAWN),
        "{}",
        b.url()
    );
}

#[test]
fn the_graph_page_finds_an_entity_by_name_and_draws_its_neighbourhood() {
    let env = small_graph();
    let (server, b) = open(&env);
    b.navigate(&at(&server, "/graph"));
    drawn(&b, 1);
    let search = b.find("#graph-search").unwrap();
    b.type_text(&search, "bob\n");
    drawn(&b, 2);
    assert_eq!(drawn_ids(&b), ["person--alice", "person--bob", "project--atlas"]);
    assert!(b.url().ends_with("/graph?focus=bob&depth=1"), "{}", b.url());
    assert_eq!(b.text(&b.wait_for("#graph-side h2", DRAWN)), "bob", "the focus is selected");
    // An unknown name is said, with the nearest ids, and nothing breaks.
    b.type_text(&search, "\u{e009}a\u{e009}\u{e017}carol\n"); // Ctrl+A, Delete, then "carol"
    assert!(
        b.wait_script(
            "return document.getElementById('graph-status').classList.contains('error')",
            DRAWN
        ),
        "{}",
        b.text(&b.find("#graph-status").unwrap())
    );
    let status = b.text(&b.find("#graph-status").unwrap());
    assert!(status.contains("carol"), "{status}");
    let _ = b.console_errors(); // the 404 of the API is expected here
}

#[test]
fn the_graph_time_slider_and_type_filter_redraw_the_graph() {
    let env = small_graph();
    let (server, b) = open(&env);
    b.navigate(&at(&server, "/graph"));
    drawn(&b, 1);
    // The slider's first step is the first date a relation starts: Alice lived in Lisbon.
    let slider = b.find("#graph-time").unwrap();
    b.type_text(&slider, "\u{e011}"); // Home
    drawn(&b, 2);
    assert_eq!(b.text(&b.find("#graph-date").unwrap()), "2027-01-01");
    assert_eq!(drawn_edges(&b), ["person--alice lives-in place--lisbon"]);
    assert!(b.url().contains("as_of=2027-01-01"), "{}", b.url());
    b.type_text(&slider, "\u{e010}"); // End: now
    drawn(&b, 3);
    assert_eq!(drawn_edges(&b).len(), 4);
    let kinds = b.find("#graph-type").unwrap();
    b.click(&kinds);
    b.click(&b.find("#graph-type option[value='person']").unwrap());
    drawn(&b, 4);
    assert_eq!(drawn_ids(&b), ["person--alice", "person--bob"]);
    assert_no_errors(&b, "/graph with filters");
}

#[test]
fn the_graph_page_shows_the_activation_of_the_selected_entity() {
    let env = small_graph();
    let (server, b) = open(&env);
    b.navigate(&at(&server, "/graph"));
    drawn(&b, 1);
    click_node(&b, "person--alice");
    b.click(&b.wait_for("#graph-activate", DRAWN));
    let list = b.wait_for("#graph-activation", DRAWN);
    let lines: Vec<String> = b.text(&list).lines().map(str::to_owned).collect();
    assert_eq!(
        lines,
        ["person--alice 1.000", "person--bob 0.250", "place--porto 0.250", "project--atlas 0.063"]
    );
    let lit = b.execute("return window.cogmemGraph.cy.nodes('.lit').length", &[]);
    assert_eq!(lit, json!(4));
    assert_no_errors(&b, "/graph activation");
}

#[test]
fn the_graph_page_draws_clusters_above_its_limit_and_opens_one() {
    let env = small_graph();
    let (server, b) = open(&env);
    b.navigate(&at(&server, "/graph?limit=1"));
    drawn(&b, 1);
    assert_eq!(
        drawn_ids(&b),
        ["cluster:person", "cluster:place", "cluster:project", "cluster:tool"]
    );
    click_node(&b, "cluster:place");
    drawn(&b, 2);
    assert_eq!(drawn_ids(&b), ["place--porto"], "the best connected place, within the limit");
    let status = b.text(&b.find("#graph-status").unwrap());
    // One of each, said in the singular.
    assert!(status.starts_with("1 entity, 0 relations"), "{status}");
    assert!(status.contains("the least connected one is not drawn"), "{status}");
    assert_no_errors(&b, "/graph clusters");
}

#[test]
fn hostile_memory_text_runs_no_script_on_the_overview_and_the_graph() {
    let env = small_graph();
    env.mutate([
        "remember",
        "<img src=x onerror=\"window.__pwned=1\"> \"><script>window.__pwned=2</script> [x](javascript:window.__pwned=3)",
        "--relation",
        "person--alice|relates-to|concept--img-src-x-onerror",
    ]);
    let (server, b) = open(&env);
    for page in ["/", "/graph", "/graph?focus=alice"] {
        b.navigate(&at(&server, page));
        b.wait_for("main h1", DRAWN);
        if page.starts_with("/graph") {
            drawn(&b, 1);
        }
        assert_eq!(b.execute("return typeof window.__pwned", &[]), json!("undefined"), "{page}");
        assert_no_errors(&b, page);
    }
}

// ---------------------------------------------------------------------------------------------
// The other pages: each loads without a script error, a click path crosses them, and hostile
// memory text runs no script on any of them.

/// Loads `path`, waits for its `<main>` heading, and checks no script failed.
fn loads_cleanly(path: &str, env: &TestEnv) {
    let (server, b) = open(env);
    b.navigate(&at(&server, path));
    b.wait_for("main h1", DRAWN);
    assert!(!b.title().contains("Not found"), "{path}: {}", b.title());
    assert_no_errors(&b, path);
}

#[test]
fn the_search_page_loads_without_errors() {
    loads_cleanly("/search?q=Alice", &small_graph());
}

#[test]
fn the_memory_page_loads_without_errors() {
    let env = small_graph();
    let out = env.run(["search", "Alice Porto", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let id = v["results"][0]["id"].as_str().or(v[0]["id"].as_str()).expect("a hit").to_owned();
    loads_cleanly(&format!("/memory/{}", percent(&id)), &env);
}

#[test]
fn the_entity_page_loads_without_errors() {
    loads_cleanly("/entity/person--alice", &small_graph());
}

#[test]
fn the_timeline_page_loads_without_errors() {
    loads_cleanly("/timeline", &small_graph());
}

#[test]
fn the_audit_page_loads_without_errors() {
    loads_cleanly("/audit", &small_graph());
}

#[test]
fn the_review_page_loads_without_errors() {
    loads_cleanly("/review", &small_graph());
}

/// Search → a memory → the graph → a node → its entity page, by clicks only.
#[test]
fn a_click_path_goes_from_search_to_a_memory_to_the_graph_to_an_entity() {
    let env = small_graph();
    let (server, b) = open(&env);
    b.navigate(&at(&server, "/search?q=Porto"));
    let hit = b.wait_for("main a[href^='/memory/']", DRAWN);
    b.click(&hit);
    assert!(b.wait_script("return location.pathname.startsWith('/memory/')", DRAWN), "{}", b.url());
    b.wait_for("main h1", DRAWN);
    assert_no_errors(&b, "the memory page");
    b.click(&b.find("header nav a[href='/graph']").unwrap());
    drawn(&b, 1);
    click_node(&b, "place--porto");
    b.click(&b.wait_for("#graph-open", DRAWN));
    assert!(
        b.wait_script("return location.pathname === '/entity/place--porto'", DRAWN),
        "{}",
        b.url()
    );
    b.wait_for("main h1", DRAWN);
    assert!(b.text(&b.find("main").unwrap()).to_lowercase().contains("porto"));
    assert_no_errors(&b, "the entity page");
}

/// A question's reading on the search page links the memory an event was taken to be: "after
/// the move" is Alice's move to Porto, one click away.
#[test]
fn the_search_page_links_the_memory_an_event_was_taken_to_be() {
    let env = small_graph();
    let (server, b) = open(&env);
    b.navigate(&at(&server, "/search?q=Where+does+Alice+live+after+the+move%3F"));
    let reading = b.wait_for("main div.reading", DRAWN);
    let said = b.text(&reading);
    assert!(said.contains("wants place") && said.contains("after \"the move\""), "{said}");
    assert_no_errors(&b, "the search page");
    b.click(&b.find("main div.reading a[href^='/memory/']").unwrap());
    assert!(b.wait_script("return location.pathname.startsWith('/memory/')", DRAWN), "{}", b.url());
    b.wait_for("main h1", DRAWN);
    assert!(b.text(&b.find("main").unwrap()).contains("Alice moved to Porto"));
    assert_no_errors(&b, "the memory page");
}

/// Hostile memory text on the pages that show memory text: no script runs.
#[test]
fn hostile_memory_text_runs_no_script_on_any_page() {
    let env = small_graph();
    env.mutate([
        "remember",
        "<img src=x onerror=\"window.__pwned=1\"> <script>window.__pwned=2</script>",
    ]);
    let out = env.run(["search", "onerror", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let id = v["results"][0]["id"].as_str().or(v[0]["id"].as_str()).expect("a hit").to_owned();
    let (server, b) = open(&env);
    let memory = format!("/memory/{}", percent(&id));
    for page in ["/search?q=onerror", memory.as_str(), "/timeline", "/audit", "/review"] {
        b.navigate(&at(&server, page));
        b.wait_for("main h1", DRAWN);
        assert_eq!(b.execute("return typeof window.__pwned", &[]), json!("undefined"), "{page}");
        assert_no_errors(&b, page);
    }
}

/// An id percent-encoded for a URL path segment.
fn percent(id: &str) -> String {
    id.bytes()
        .map(|c| match c {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (c as char).to_string()
            }
            _ => format!("%{c:02X}"),
        })
        .collect()
}

/// A person approves a sub-agent's proposal on the review page by clicks: the result page names
/// the commit made, which is HEAD, carries the person's approval, and holds the memory.
#[test]
fn approving_a_proposal_by_clicks_makes_the_commit_the_page_names() {
    let env = small_graph();
    env.run(["--actor", "subagent:researcher", "propose", "Alice prefers green tea"]).success();
    let before = env.commit_count();
    let (server, b) = open(&env);
    b.navigate(&at(&server, "/review"));
    let proposal = b.wait_for("#proposal-1", DRAWN);
    assert!(b.text(&proposal).contains("Alice prefers green tea"), "{}", b.text(&proposal));
    b.click(&b.find("#approve-1").expect("an approve button"));
    let commit = b.wait_for("#commit", DRAWN);
    let id = b.attribute(&commit, "title").expect("the commit's full id");
    assert_no_errors(&b, "the result page");
    assert_eq!(id, env.head(), "the page names the commit made");
    assert_eq!(env.commit_count(), before + 1, "one commit");
    env.assert_clean_tree();
    let message = env.git(&["log", "-1", "--format=%B"]);
    assert!(message.contains("Approval: approved"), "{message}");
    assert!(message.contains("(by user:tester)"), "{message}");
    let shown = env.git(&["show", "--format=", "HEAD"]);
    assert!(shown.contains("+Alice prefers green tea"), "{shown}");
    // The commit's audit page is one click away and shows that diff.
    b.click(&b.find("#result a[href^='/audit/']").expect("a link to the commit"));
    assert!(
        b.wait_script(&format!("return location.pathname === '/audit/{id}'"), DRAWN),
        "{}",
        b.url()
    );
    let main = b.wait_for("main pre.diff", DRAWN);
    assert!(b.text(&main).contains("Alice prefers green tea"), "{}", b.text(&main));
    assert_no_errors(&b, "the commit's page");
}

/// Waits until the page listens to the live updates (the dot is on).
fn wait_live(b: &Browser) {
    assert!(
        b.wait_script(
            "return document.getElementById('live-state').classList.contains('on')",
            DRAWN
        ),
        "the page did not connect to /events"
    );
}

/// A decision's result page is a GET (POST-redirect-GET): the live updates re-fetch it without
/// an error when the workspace changes, and a reload shows it again without deciding again.
#[test]
fn a_decision_s_result_page_survives_live_updates_and_a_reload() {
    let env = small_graph();
    env.run(["--actor", "subagent:researcher", "propose", "Alice may like tea"]).success();
    env.run(["--actor", "subagent:researcher", "propose", "Bob may like tea"]).success();
    let (server, b) = open(&env);
    b.navigate(&at(&server, "/review"));
    b.wait_for("#defer-1", DRAWN);
    wait_live(&b);
    b.click(&b.find("#defer-1").unwrap());
    b.wait_for("#commit", DRAWN);
    assert!(b.url().ends_with("/review/done/1"), "{}", b.url());
    let head = env.head();
    wait_live(&b);
    // The page is swapped in place on the next change: mark its <main> to see it replaced.
    b.execute("document.querySelector('main').dataset.old = 'yes'", &[]);
    env.run(["--actor", "subagent:researcher", "propose", "Carol may like tea"]).success();
    assert!(
        b.wait_script("return document.querySelector('main').dataset.old === undefined", DRAWN),
        "the result page was not re-fetched"
    );
    assert!(b.text(&b.find("#result").unwrap()).contains("proposal #1 deferred"));
    assert_no_errors(&b, "the result page after a change");
    let commits = env.commit_count();
    b.execute("location.reload()", &[]);
    b.wait_for("#commit", DRAWN);
    assert_eq!(env.commit_count(), commits, "a reload decides nothing again");
    assert_eq!(b.attribute(&b.find("#commit").unwrap(), "title").unwrap(), head);
    assert_no_errors(&b, "the reloaded result page");
}

/// A change of the workspace made elsewhere (an agent's proposal through the CLI) shows on the
/// open overview without a reload; on the review page, a person's unsent choice (an unticked
/// box) is not thrown away by the next change.
#[test]
fn pages_update_live_and_keep_a_persons_unsent_choices() {
    let env = small_graph();
    let (server, b) = open(&env);
    b.navigate(&at(&server, "/"));
    b.wait_for("main h1", DRAWN);
    wait_live(&b);
    // A reload would clear this.
    b.execute("window.__stayed = true", &[]);
    env.run(["--actor", "subagent:researcher", "propose", "Bob may join Atlas"]).success();
    assert!(
        b.wait_script(
            "return document.querySelector('main').textContent.includes('1 open proposal')",
            DRAWN
        ),
        "{}",
        b.text(&b.find("main").unwrap())
    );
    assert_eq!(b.execute("return window.__stayed === true", &[]), json!(true), "no reload");
    assert_no_errors(&b, "the overview after a change");

    // The review page: the person types a reason, then the workspace changes again.
    b.navigate(&at(&server, "/review"));
    let reason = b.wait_for("#reject-reason-1", DRAWN);
    b.type_text(&reason, "not sure yet");
    b.execute("document.activeElement.blur(); window.__stayed = true", &[]);
    env.run(["--actor", "subagent:researcher", "propose", "Carol may join Atlas"]).success();
    assert!(
        b.wait_script(
            "return document.getElementById('live-state').classList.contains('stale')",
            DRAWN
        ),
        "the dot says the page is behind"
    );
    assert_eq!(b.execute("return window.__stayed === true", &[]), json!(true), "no reload");
    let typed = b.execute("return document.getElementById('reject-reason-1').value", &[]);
    assert_eq!(typed, json!("not sure yet"), "the typed reason is kept");
    assert!(b.find("#proposal-2").is_none(), "the page was not swapped under the person");
    assert_no_errors(&b, "the review page after a change");
}
