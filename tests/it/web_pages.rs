//! The web view's browsing pages against the real `cogmem serve` on loopback (issue 21): search,
//! memory, entity, timeline and audit pages answer 200 with their content, unknown ids are a 404
//! page with a hint, hostile memory text comes back escaped on every page, the filters change
//! the results, and each `/api/` twin prints what the CLI's `--json` prints.

use crate::common::TestEnv;
use crate::common::web::WebServer;

/// Starts the server; returns it and the time its clock shows (the CLI's `COGMEM_NOW` for
/// comparing with `--json`).
fn serve(env: &TestEnv) -> (WebServer, String) {
    let now = env.peek_now();
    (WebServer::start(env, &[]), now)
}

/// GETs `path`, checks for 200, and returns the body.
#[track_caller]
fn ok(server: &WebServer, path: &str) -> String {
    let r = server.get(path);
    assert_eq!(r.status, 200, "GET {path}:\n{}", r.body);
    r.body
}

/// GETs `path` and parses the JSON body.
#[track_caller]
fn json(server: &WebServer, path: &str) -> serde_json::Value {
    let body = ok(server, path);
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: {e}: {body}"))
}

/// Percent-encodes a query value or path segment.
fn enc(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~:".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// The id of the best hit for `query` (`--all`).
fn id_of(env: &TestEnv, query: &str) -> String {
    let out = env.run(["search", query, "--all", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    v[0]["id"].as_str().unwrap_or_else(|| panic!("no hit for {query:?}: {out}")).to_owned()
}

/// The part of a page between `<main` and `</main>` (the whole page when it has none), so
/// checks see what the page shows, not the navigation.
fn main_of(page: &str) -> &str {
    let start = page.find("<main").unwrap_or(0);
    let end = page[start..].find("</main>").map_or(page.len(), |e| start + e);
    &page[start..end]
}

fn parse(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

const HOSTILE: [&str; 3] = [
    "Hostile one <script>alert(1)</script> here",
    "Hostile two \"><img src=x onerror=alert(1)> here",
    "Hostile three [click me](javascript:alert(1)) here",
];

/// Checks that no hostile text came through as markup.
#[track_caller]
fn assert_escaped(what: &str, page: &str) {
    for bad in ["<script>alert", "<img src=x", "href=\"javascript:", "onerror=alert(1)>"] {
        assert!(!page.contains(bad), "{what} lets {bad:?} through:\n{page}");
    }
}

#[test]
fn web_pages_show_search_memory_entity_timeline_and_audit() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "Alice lives in Lisbon",
        "--relation",
        "person--alice|lives-in|place--lisbon",
    ]);
    env.mutate(["remember", "Alice found a flat in Alfama"]);
    env.mutate(["remember", "Alice likes walking by the river"]);
    let (server, _) = serve(&env);

    // Search: the hit links to its page, and its words are marked as the index stems them.
    let page = ok(&server, "/search?q=walks");
    let walking = id_of(&env, "walking river");
    assert!(page.contains(&format!("href=\"/memory/{}\"", enc(&walking))), "{page}");
    assert!(page.contains("<mark>walking</mark>"), "{page}");
    // How the query was read: a question naming a time by an event links the memory whose
    // date it took.
    let flat = id_of(&env, "flat in Alfama");
    let page = ok(&server, "/search?q=Where+did+Alice+walk+after+the+flat+in+Alfama%3F");
    assert!(page.contains("class=\"reading\""), "{page}");
    assert!(page.contains("Read as: wants place; about Alice"), "{page}");
    assert!(page.contains(&format!("href=\"/memory/{}\"", enc(&flat))), "{page}");
    // A plain query says nothing more than its words: no reading.
    assert!(!ok(&server, "/search?q=walks").contains("class=\"reading\""));
    // An empty search shows the form only.
    let empty = ok(&server, "/search");
    assert!(empty.contains("name=\"q\"") && !empty.contains("class=\"hits\""), "{empty}");

    // Memory: text, score and why, history with the commit that made it.
    let page = ok(&server, &format!("/memory/{}", enc(&walking)));
    assert!(page.contains("Alice likes walking by the river"), "{page}");
    assert!(page.contains("clamp01("), "the why formula: {page}");
    let head = env.head();
    assert!(page.contains(&format!("href=\"/audit/{head}\"")), "its commit: {page}");
    assert!(page.contains("class=\"diff-add\""), "{page}");

    // Entity: its relation now, links to the neighbour and to the memories naming it.
    let page = ok(&server, "/entity/person--alice");
    assert!(page.contains("lives-in"), "{page}");
    assert!(page.contains("href=\"/entity/place--lisbon\""), "{page}");
    assert!(page.contains("name=\"as_of\""), "{page}");
    // The entity's own memory page lists its relations too.
    let page = ok(&server, "/memory/entity:person--alice");
    assert!(page.contains("href=\"/entity/place--lisbon\""), "{page}");

    // Timeline: the day, its entries newest first, each linked.
    let page = ok(&server, "/timeline");
    let main = main_of(&page);
    assert!(main.contains("2026-12-01"), "{main}");
    let (a, b) = (main.find("walking by the river"), main.find("flat in Alfama"));
    assert!(a.is_some() && b.is_some() && a < b, "newest first: {main}");

    // Audit: the log newest first, each line linked to its commit; the commit's diff.
    let page = ok(&server, "/audit");
    assert!(page.contains(&format!("href=\"/audit/{head}\"")), "{page}");
    assert!(page.contains("system:init"), "{page}");
    let page = ok(&server, &format!("/audit/{head}"));
    assert!(page.contains("memory/meta/audit.log"), "{page}");
    assert!(page.contains("class=\"diff-add\">+"), "{page}");
    let short = ok(&server, &format!("/audit/{}", &head[..8]));
    assert!(short.contains(&head), "a short id finds the commit: {short}");
}

#[test]
fn web_pages_unknown_ids_are_404_pages_with_a_hint() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice prefers tea"]);
    let (server, _) = serve(&env);
    for path in [
        "/memory/episode:1999-01-01:00:00",
        "/entity/person--nobody-at-all",
        "/audit/0000000000000000000000000000000000000000",
        "/audit/HEAD",
        "/api/memory/vault:nothing-here",
        "/api/audit/abcdef1234",
    ] {
        let r = server.get(path);
        assert_eq!(r.status, 404, "GET {path}:\n{}", r.body);
        assert!(r.body.contains("hint"), "GET {path} says what to do:\n{}", r.body);
    }
    // A bad filter value is the person's mistake, not a missing page.
    for path in
        ["/search?q=tea&band=glowing", "/timeline?month=2026-13", "/entity/person--x?as_of=soonish"]
    {
        let r = server.get(path);
        assert_eq!(r.status, 400, "GET {path}:\n{}", r.body);
    }
}

#[test]
fn web_pages_escape_hostile_memory_text() {
    let env = TestEnv::initialized();
    for text in HOSTILE {
        env.mutate(["remember", text]);
    }
    let (server, _) = serve(&env);
    let search = ok(&server, "/search?q=hostile");
    assert_escaped("search", &search);
    assert!(search.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{search}");
    assert!(search.contains("<mark>Hostile</mark>"), "{search}");
    for text in HOSTILE {
        let word = text.split(' ').nth(1).unwrap();
        let id = id_of(&env, &format!("hostile {word}"));
        let page = ok(&server, &format!("/memory/{}", enc(&id)));
        assert_escaped("memory", &page);
        assert!(page.contains("&lt;") || page.contains("javascript:alert(1)"), "{page}");
    }
    let timeline = ok(&server, "/timeline");
    assert_escaped("timeline", &timeline);
    assert!(timeline.contains("&lt;img src=x onerror=alert(1)&gt;"), "{timeline}");
    let audit = ok(&server, "/audit");
    assert_escaped("audit", &audit);
    let commit = ok(&server, &format!("/audit/{}", env.head()));
    assert_escaped("commit", &commit);
    assert!(commit.contains("javascript:alert(1)"), "the text is shown, as text: {commit}");
}

#[test]
fn web_pages_filters_change_results() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "The harbour office opens at nine"]);
    env.set_now("2027-01-10T09:00:00Z");
    env.mutate(["remember", "The harbour ferry leaves at ten"]);
    env.mutate([
        "remember",
        "The harbour is in Lisbon",
        "--relation",
        "place--harbour|part-of|place--lisbon",
    ]);
    let (server, _) = serve(&env);
    let ids = |path: &str| -> Vec<String> {
        json(&server, path)["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_owned())
            .collect()
    };
    let all = ids("/api/search?q=harbour");
    assert!(all.len() >= 2, "{all:?}");
    // Store.
    let semantic = ids("/api/search?q=harbour&store=semantic");
    assert!(
        !semantic.is_empty() && semantic.iter().all(|i| i.starts_with("entity:")),
        "{semantic:?}"
    );
    // Date.
    let since = ids("/api/search?q=harbour&store=episodic&since=2027-01-01");
    assert_eq!(since.len(), 1, "{since:?}");
    assert!(since[0].starts_with("episode:2027-01-10"), "{since:?}");
    // Band: the December memory has faded in 40 days (0.8 × e^(−1.2) = 0.24); the January one has not.
    let fading = ids("/api/search?q=harbour&band=fading");
    assert!(
        fading.iter().all(|i| i.starts_with("episode:2026-12-01")) && !fading.is_empty(),
        "{fading:?}"
    );
    let active = ids("/api/search?q=harbour&band=active");
    assert!(!active.iter().any(|i| i.starts_with("episode:2026-12-01")), "{active:?}");
    // The page shows the same filtered hits, and keeps the form's values.
    let page = ok(&server, "/search?q=harbour&band=fading&store=");
    assert!(page.contains("<option value=\"fading\" selected>"), "{page}");
    assert!(!page.contains("ferry leaves"), "{page}");
    // Timeline months page back.
    let jan = ok(&server, "/timeline");
    assert!(jan.contains("ferry leaves") && !jan.contains("office opens"), "{jan}");
    assert!(jan.contains("href=\"/timeline?month=2026-12\""), "{jan}");
    let dec = ok(&server, "/timeline?month=2026-12");
    assert!(dec.contains("office opens") && !dec.contains("ferry leaves"), "{dec}");
    // Audit by actor.
    let system = json(&server, "/api/audit?actor=system");
    let lines = system["lines"].as_array().unwrap();
    assert!(
        !lines.is_empty()
            && lines.iter().all(|l| l["actor"].as_str().unwrap().starts_with("system:"))
    );
    let page = ok(&server, "/audit?actor=system");
    assert!(!main_of(&page).contains("test-agent"), "{page}");
    // An entity as of a day before its relation began has none.
    let before = json(&server, "/api/entity/place--harbour?as_of=2026-12-15");
    assert_eq!(before["links"].as_array().unwrap().len(), 0, "{before}");
}

/// A memory file the search could not read is named on the search page and in `/api/search`,
/// as `cogmem search` warns of it (exit 3): never a silent "no matches".
#[test]
fn web_pages_search_names_the_files_it_could_not_read() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "apples are on the list"]);
    let day = "memory/episodes/2026-12-01.md";
    let mut bytes = std::fs::read(env.path(day)).unwrap();
    bytes.extend_from_slice(b"\n## 12:00 | fact | confidence:high | tags:[]\nmore apples \xff\n");
    std::fs::write(env.path(day), bytes).unwrap();
    let cli = env.run(["search", "apples"]).output().code(3);
    assert!(cli.stderr.contains("not valid UTF-8"), "{cli}");
    let (server, _) = serve(&env);
    let api = json(&server, "/api/search?q=apples");
    assert_eq!(api["hits"], serde_json::json!([]), "{api}");
    let skipped = api["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{api}");
    assert_eq!(skipped[0]["path"], day, "{api}");
    let why = skipped[0]["error"].as_str().unwrap();
    assert!(why.contains("2026-12-01.md: not valid UTF-8 at byte"), "{api}");
    assert!(api["warning"].is_null(), "{api}");
    let page = ok(&server, "/search?q=apples");
    let main = main_of(&page);
    assert!(main.contains(r#"id="search-skipped""#), "{main}");
    assert!(main.contains(&format!("skipped {}", why.replace('"', "&quot;"))), "{main}");
    assert!(main.contains("No matches in the files that could be read"), "{main}");
    assert!(!main.contains("No matches. Try other words"), "{main}");
}

#[test]
fn web_pages_api_prints_what_the_cli_json_prints() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "Bob drinks green tea",
        "--relation",
        "person--bob|prefers|concept--green-tea",
    ]);
    env.mutate(["remember", "Bob brews tea at four"]);
    env.mutate(["remember", "Bob brews coffee at five"]);
    let (server, now) = serve(&env);
    let cli = |args: &[&str]| parse(&env.run(args).env("COGMEM_NOW", &now).success().stdout);
    // A search answers the CLI's hits under `hits`, beside what the CLI warns of on stderr.
    let searches: [(&str, &[&str]); 2] = [
        ("/api/search?q=tea", &["search", "tea", "--json"]),
        (
            "/api/search?q=tea&store=episodic&all=1",
            &["search", "tea", "--store", "episodic", "--all", "--json"],
        ),
    ];
    for (path, args) in searches {
        let api = json(&server, path);
        assert_eq!(api["hits"], cli(args), "GET {path} vs cogmem {args:?}");
        assert_eq!(
            (&api["skipped"], &api["warning"]),
            (&serde_json::json!([]), &serde_json::Value::Null)
        );
    }
    let cases: [(&str, &[&str]); 3] = [
        ("/api/entity/person--bob", &["graph", "show", "person--bob", "--json"]),
        ("/api/entity/person--bob/history", &["graph", "history", "person--bob", "--json"]),
        ("/api/audit?actor=test-agent", &["audit", "--actor", "test-agent", "--json"]),
    ];
    for (path, args) in cases {
        assert_eq!(json(&server, path), cli(args), "GET {path} vs cogmem {args:?}");
    }
    // `show` counts a use, so the API (which does not) is asked first.
    let id = id_of(&env, "brews tea four");
    let api = json(&server, &format!("/api/memory/{}", enc(&id)));
    assert_eq!(api, cli(&["show", &id, "--json"]));
    // The history of one entry of a day: only its own commit, only its own hunk.
    let h = json(&server, &format!("/api/memory/{}/history", enc(&id)));
    let changes = h["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{h}");
    let diff = changes[0]["diff"].as_str().unwrap();
    assert!(diff.contains("+Bob brews tea at four") && !diff.contains("coffee"), "{diff}");
}
