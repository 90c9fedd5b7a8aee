//! The web view's review page (issue 21, item 3): proposals, a reflection (all blocks or only
//! some), the self-image consolidation and critical-file changes decided over HTTP against the
//! real `cogmem serve`, through the same gates as the CLI and as the server's `user:NAME`. Every
//! decision is checked in git; every refusal is checked to commit nothing.
// See: issue 21

use crate::common::TestEnv;
use crate::common::web::{HttpResponse, WebServer};
use crate::reflect::CONSOLIDATION;

fn propose(env: &TestEnv, agent: &str, args: &[&str]) {
    let mut all = vec!["--actor".to_owned(), format!("subagent:{agent}"), "propose".to_owned()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    env.run(all).success();
}

/// The CSRF token of the review page's forms.
fn csrf(server: &WebServer) -> String {
    let page = server.get("/review");
    assert_eq!(page.status, 200, "{page:?}");
    let at = page.body.find(r#"name="csrf" value=""#).expect("a form with the CSRF field");
    let rest = &page.body[at + r#"name="csrf" value=""#.len()..];
    rest[..rest.find('"').unwrap()].to_owned()
}

/// `application/x-www-form-urlencoded` of `fields`.
fn encode(fields: &[(&str, &str)]) -> String {
    let enc = |s: &str| {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                b' ' => "+".to_owned(),
                _ => format!("%{b:02X}"),
            })
            .collect::<String>()
    };
    fields.iter().map(|(k, v)| format!("{}={}", enc(k), enc(v))).collect::<Vec<_>>().join("&")
}

/// A POST from this server's own page (its Origin, the cookie) with `headers` and `body`.
fn post_from_page(
    server: &WebServer,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> HttpResponse {
    let origin = format!("http://{}", server.addr);
    let cookie = server.cookie();
    let mut all = vec![("Cookie", cookie.as_str()), ("Origin", origin.as_str())];
    all.extend_from_slice(headers);
    server.send("POST", path, &all, body)
}

/// A form POST as the page's own form sends it; a decision's 303 is followed to its result
/// page, as a browser follows it (a refusal is returned as it is).
fn post(server: &WebServer, path: &str, fields: &[(&str, &str)]) -> HttpResponse {
    let form = [("Content-Type", "application/x-www-form-urlencoded")];
    let answer = post_from_page(server, path, &form, &encode(fields));
    if answer.status != 303 {
        return answer;
    }
    let to = answer.header("location").expect("a 303 names where to go").to_owned();
    assert!(to.starts_with("/review/done/"), "{path} → {to}");
    server.get(&to)
}

/// A JSON POST as a script sends it, with the CSRF header.
fn post_json(server: &WebServer, path: &str, token: &str, body: &str) -> HttpResponse {
    let headers = [("X-Cogmem-Csrf", token), ("Content-Type", "application/json")];
    post_from_page(server, path, &headers, body)
}

/// The full commit id the result page names.
fn result_commit(page: &HttpResponse) -> String {
    assert_eq!(page.status, 200, "{page:?}");
    let at = page.body.find(r#"<code id="commit" title=""#).expect("the result names a commit");
    let rest = &page.body[at + r#"<code id="commit" title=""#.len()..];
    rest[..rest.find('"').unwrap()].to_owned()
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn approving_a_proposal_in_the_browser_commits_what_the_cli_commits() {
    // The same history twice: decided over HTTP, and by the CLI as the same person.
    let web = TestEnv::initialized();
    let cli = TestEnv::initialized();
    for env in [&web, &cli] {
        propose(env, "researcher", &["--entity", "person--alice", "Alice prefers tea"]);
    }
    let server = WebServer::start(&web, &[]);
    let page = server.get("/review");
    assert!(page.body.contains(r#"<article id="proposal-1" class="proposal">"#), "{}", page.body);
    assert!(page.body.contains("Alice prefers tea"), "{}", page.body);
    let before = web.commit_count();
    let token = csrf(&server);
    let done = post(&server, "/review/proposal/1/approve", &[("csrf", &token), ("store", "")]);
    let commit = result_commit(&done);
    assert!(done.body.contains("proposal #1 committed"), "{}", done.body);
    assert_eq!(commit, web.head(), "the page names the commit made");
    assert_eq!(web.commit_count(), before + 1, "one commit");
    web.assert_clean_tree();

    cli.run(["--actor", "user:tester", "pending", "approve", "1"]).success();
    let message = |env: &TestEnv| env.git(&["log", "-1", "--format=%an%n%B"]);
    assert_eq!(message(&web), message(&cli), "the same commit as the CLI's");
    let m = message(&web);
    assert!(m.starts_with("bot:commit-from:researcher\n"), "{m}");
    assert!(m.contains("\nApproval: approved\n"), "{m}");
    assert!(m.contains("Trigger: cogmem pending approve 1 (by user:tester)"), "{m}");
    let files = |env: &TestEnv| env.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(files(&web), files(&cli));
    assert!(web.read("memory/graph/entities/person--alice.md").contains("- Alice prefers tea"));

    // Decided once: a second approval is refused as a conflict, with the CLI's words.
    let again = post(&server, "/review/proposal/1/approve", &[("csrf", &token)]);
    assert_eq!(again.status, 409, "{again:?}");
    assert!(again.body.contains("proposal #1 is already committed"), "{}", again.body);
    assert_eq!(web.head(), commit, "nothing more committed");
}

#[test]
fn rejecting_and_deferring_record_the_person_and_the_reason() {
    let env = TestEnv::initialized();
    propose(&env, "a", &["We chose Postgres"]);
    propose(&env, "b", &["We chose Redis for the queue"]);
    let server = WebServer::start(&env, &[]);
    let token = csrf(&server);

    // A rejection needs a reason: refused, nothing committed.
    let head = env.head();
    let bare = post(&server, "/review/proposal/1/reject", &[("csrf", &token), ("reason", " ")]);
    assert_eq!(bare.status, 400, "{bare:?}");
    assert!(bare.body.contains("a rejection needs a reason"), "{}", bare.body);
    assert_eq!(env.head(), head);

    let done = post(
        &server,
        "/review/proposal/1/reject",
        &[("csrf", &token), ("reason", "we use MySQL & it's fine")],
    );
    assert_eq!(result_commit(&done), env.head());
    let log = env.git(&["log", "-1", "--format=%an%n%B"]);
    assert!(log.starts_with("user:tester\n[REJECT] memory/meta/pending-memories.md"), "{log}");
    let text = env.read("memory/meta/pending-memories.md");
    assert!(text.contains("user:tester: rejected — we use MySQL & it's fine"), "{text}");

    let done = post(&server, "/review/proposal/2/defer", &[("csrf", &token), ("reason", "")]);
    assert_eq!(result_commit(&done), env.head());
    assert!(done.body.contains("proposal #2 deferred"), "{}", done.body);
    let list = json(&server.get("/api/review/proposals").body);
    assert_eq!(list.as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list[0]["status"], "deferred");
    env.assert_clean_tree();
}

/// Every review form answers a decision with POST-redirect-GET (the identity forms go through
/// the same `act_page` as these): a 303 to a result page that a
/// reload (or the live updates' re-fetch) GETs again without deciding anything twice. A refused
/// form answers at its own address, with its status, and its page is not re-fetched live.
#[test]
fn every_review_form_redirects_to_a_result_page_that_a_reload_does_not_decide_again() {
    let env = submitted_reflection_and_critical_change();
    propose(&env, "a", &["We chose Postgres"]);
    propose(&env, "b", &["We chose Redis"]);
    propose(&env, "c", &["We chose Kafka"]);
    let server = WebServer::start(&env, &[]);
    let token = csrf(&server);
    let form = [("Content-Type", "application/x-www-form-urlencoded")];
    // (the form's address, its fields besides the CSRF token, what the result page says)
    type Form<'a> = (&'a str, Vec<(&'a str, &'a str)>, &'a str);
    let forms: [Form<'_>; 5] = [
        ("/review/proposal/1/approve", vec![("store", "")], "proposal #1 committed"),
        ("/review/proposal/2/reject", vec![("reason", "no")], "proposal #2 rejected"),
        ("/review/proposal/3/defer", vec![], "proposal #3 deferred"),
        (
            "/review/reflection/approve",
            vec![("blocks", "3"), ("block", "1"), ("block", "2"), ("block", "3")],
            "approved into",
        ),
        ("/review/critical/ack", vec![], "acknowledged"),
    ];
    for (k, (path, fields, says)) in forms.into_iter().enumerate() {
        let mut all = vec![("csrf", token.as_str())];
        all.extend(fields);
        let answer = post_from_page(&server, path, &form, &encode(&all));
        assert_eq!(answer.status, 303, "POST {path}: {answer:?}");
        let to = answer.header("location").unwrap().to_owned();
        assert_eq!(to, format!("/review/done/{}", k + 1), "POST {path}");
        let head = env.head();
        for _ in 0..2 {
            let page = server.get(&to);
            assert_eq!(result_commit(&page), head, "{path}: the page names the commit made");
            assert!(page.body.contains(says), "{path}: {}", page.body);
            assert!(page.body.contains(r#"<main id="main">"#), "live: {}", page.body);
        }
        assert_eq!(env.head(), head, "{path}: a reload of the result decides nothing again");
        env.assert_clean_tree();
    }
    let gone = server.get("/review/done/99");
    assert_eq!(gone.status, 404, "{gone:?}");
    assert!(gone.body.contains("/audit"), "{}", gone.body);
    // A refusal stays at the form's address with its status; its page is not re-fetched live.
    let again = post(&server, "/review/proposal/1/approve", &[("csrf", &token)]);
    assert_eq!(again.status, 409, "{again:?}");
    assert!(again.body.contains(r#"<main id="main" data-live="off">"#), "{}", again.body);
    assert_eq!(server.get("/review/proposal/1/approve").status, 405);
}

#[test]
fn a_write_without_the_csrf_token_or_from_another_origin_is_refused_and_commits_nothing() {
    let env = TestEnv::initialized();
    propose(&env, "a", &["We chose Postgres"]);
    let server = WebServer::start(&env, &[]);
    let token = csrf(&server);
    let head = env.head();

    let no_token = post(&server, "/review/proposal/1/approve", &[]);
    assert_eq!(no_token.status, 403, "{no_token:?}");
    let wrong = post(&server, "/review/proposal/1/approve", &[("csrf", "0123456789abcdef")]);
    assert_eq!(wrong.status, 403, "{wrong:?}");
    let cross = server.send(
        "POST",
        "/review/proposal/1/approve",
        &[
            ("Cookie", &server.cookie()),
            ("Origin", "http://evil.example"),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        &encode(&[("csrf", &token)]),
    );
    assert_eq!(cross.status, 403, "{cross:?}");
    let json_no_header = server.send(
        "POST",
        "/api/review/proposals/1/approve",
        &[("Cookie", &server.cookie()), ("Content-Type", "application/json")],
        "{}",
    );
    assert_eq!(json_no_header.status, 403, "{json_no_header:?}");
    // A GET never decides.
    let get = server.get("/review/proposal/1/approve");
    assert_eq!(get.status, 405, "{get:?}");
    let get = server.get("/api/review/critical/ack");
    assert_eq!(get.status, 405, "{get:?}");

    assert_eq!(env.head(), head, "nothing was committed");
    env.assert_clean_tree();
    let p = json(&server.get("/api/review/proposals/1").body);
    assert_eq!(p["status"], "pending");
}

#[test]
fn hostile_proposal_text_is_escaped_on_the_review_page() {
    let env = TestEnv::initialized();
    propose(
        &env,
        "evil",
        &[
            "--entity",
            "person--mallory",
            "<script>alert(1)</script> \"><img src=x onerror=alert(1)> [x](javascript:alert(1))",
        ],
    );
    let server = WebServer::start(&env, &[]);
    let page = server.get("/review");
    assert_eq!(page.status, 200);
    assert!(!page.body.contains("<script>alert"), "{}", page.body);
    assert!(!page.body.contains("<img src=x"), "{}", page.body);
    assert!(!page.body.contains(r#"href="javascript:"#), "{}", page.body);
    assert!(page.body.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{}", page.body);
    assert!(page.body.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"), "{}", page.body);
}

#[test]
fn a_conflicting_proposal_is_marked_and_the_json_twin_decides_it() {
    let env = TestEnv::initialized();
    propose(&env, "a", &["--entity", "person--alice", "Alice prefers tea"]);
    propose(&env, "b", &["--entity", "person--alice", "Alice prefers coffee"]);
    let server = WebServer::start(&env, &[]);
    let page = server.get("/review");
    assert!(page.body.contains(r#"<article id="proposal-2" class="proposal conflict">"#));
    assert!(page.body.contains("⚠️ CONFLICT with #1"), "{}", page.body);
    let review = json(&server.get("/api/review").body);
    assert_eq!(review["proposals"][1]["status"], "conflict", "{review}");
    assert_eq!(review["proposals"][1]["conflicts_with"], 1, "{review}");
    assert_eq!(review["reflection"], serde_json::Value::Null);

    let token = csrf(&server);
    let out = post_json(&server, "/api/review/proposals/2/approve", &token, r#"{"store":"vault"}"#);
    assert_eq!(out.status, 200, "{out:?}");
    let v = json(&out.body);
    assert_eq!(v["status"], "committed", "{v}");
    assert_eq!(v["commit"], env.head().as_str(), "{v}");
    assert_eq!(v["remembered"]["written"][0]["store"], "vault", "{v}");
    let missing = post_json(&server, "/api/review/proposals/9/approve", &token, "{}");
    assert_eq!(missing.status, 404, "{missing:?}");
    assert!(json(&missing.body)["error"]["message"].as_str().unwrap().contains("#9"));
    env.assert_clean_tree();
}

const REFLECTION: &str = "\
Ann keeps coming up.

OPERATION: EXTRACT
TARGET: entity:person--ann
CONTENT: Ann moved her team to Atlas
REASON: said on Monday
---
OPERATION: EXTRACT
TARGET: entity:person--ann
CONTENT: Ann reviews on Fridays
REASON: seen twice
---
OPERATION: PATTERN
TARGET: memory/meta/evolution.md
CONTENT: Ann brings up Atlas in the mornings
REASON: three mornings
---
[Self-Awareness] I keep notes short.
";

/// [`submitted_reflection`], and a change of SOUL.md by a person, not yet acknowledged.
fn submitted_reflection_and_critical_change() -> TestEnv {
    let env = submitted_reflection();
    let soul = env.read("SOUL.md") + "Be brief.\n";
    env.write("SOUL.md", &soul);
    env.run(["sync", "--actor", "user:ann"]).success();
    env
}

fn submitted_reflection() -> TestEnv {
    let env = TestEnv::initialized();
    env.run(["remember", "--entity", "person--ann", "Ann lives in Oslo"]).success();
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
    env.run(["reflect", "submit", "-"]).stdin(REFLECTION).success();
    env
}

#[test]
fn a_reflection_approved_with_only_some_blocks_applies_only_those() {
    let env = submitted_reflection();
    let server = WebServer::start(&env, &[]);
    let page = server.get("/review");
    for k in 1..=3 {
        assert!(page.body.contains(&format!(r#"id="block-{k}""#)), "{}", page.body);
    }
    // Each block's diff is shown, as `reflect show` prints it.
    assert!(page.body.contains("+++ b/memory/graph/entities/person--ann.md"), "{}", page.body);
    assert!(page.body.contains("Ann moved her team to Atlas"), "{}", page.body);
    let shown = json(&server.get("/api/review/reflection").body);
    let cli = json(&env.run(["reflect", "show", "--json"]).success().stdout);
    assert_eq!(shown, cli, "the JSON twin is `reflect show --json`");

    let token = csrf(&server);
    let head = env.head();
    let none = post(&server, "/review/reflection/approve", &[("csrf", &token), ("blocks", "3")]);
    assert_eq!(none.status, 400, "{none:?}");
    assert_eq!(env.head(), head);
    let done = post(
        &server,
        "/review/reflection/approve",
        &[("csrf", &token), ("blocks", "3"), ("block", "1"), ("block", "3")],
    );
    assert_eq!(result_commit(&done), env.head());
    assert!(done.body.contains("reflection #1 approved into"), "{}", done.body);
    assert!(done.body.contains("#2 EXTRACT entity:person--ann — not approved"), "{}", done.body);
    let log = env.git(&["log", "-1", "--format=%an%n%B"]);
    assert!(log.starts_with("reflection:r-001\n"), "{log}");
    assert!(log.contains("\nApproval: approved\nTrigger: cogmem reflect approve (by user:tester)"));
    let ann = env.read("memory/graph/entities/person--ann.md");
    assert!(ann.contains("Ann moved her team to Atlas"), "{ann}");
    assert!(!ann.contains("Ann reviews on Fridays"), "block 2 was not approved: {ann}");
    env.assert_clean_tree();
    // Nothing waits any more.
    let review = json(&server.get("/api/review").body);
    assert_eq!(review["reflection"], serde_json::Value::Null, "{review}");
}

#[test]
fn a_reflection_rejected_in_the_browser_changes_no_memory() {
    let env = submitted_reflection();
    let ann = env.read("memory/graph/entities/person--ann.md");
    let server = WebServer::start(&env, &[]);
    let token = csrf(&server);
    let done =
        post(&server, "/review/reflection/reject", &[("csrf", &token), ("reason", "too soon")]);
    assert_eq!(result_commit(&done), env.head());
    assert!(done.body.contains("reflection #1 rejected: too soon"), "{}", done.body);
    let author = env.git(&["log", "-1", "--format=%an"]);
    assert_eq!(author.trim(), "user:tester");
    assert_eq!(env.read("memory/graph/entities/person--ann.md"), ann);
    env.assert_clean_tree();
}

#[test]
fn the_identity_consolidation_is_shown_as_a_diff_and_approved() {
    let env = TestEnv::initialized();
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
    let text: String = (1..=10).map(|i| format!("[Self-Awareness] insight number {i}\n")).collect();
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    env.run(["--actor", "user:ann", "reflect", "approve"]).success();
    env.run(["identity", "consolidate", "submit", "-"]).stdin(CONSOLIDATION).success();

    let server = WebServer::start(&env, &[]);
    let page = server.get("/review");
    assert!(
        page.body.contains(r#"<span class="diff-add">+ A careful helper who sometimes hurries."#),
        "{}",
        page.body
    );
    assert!(page.body.contains(r#"id="identity-approve""#), "{}", page.body);
    let shown = json(&server.get("/api/review/identity").body);
    let cli = json(&env.run(["identity", "consolidate", "show", "--json"]).success().stdout);
    assert_eq!(shown, cli, "the JSON twin is `identity consolidate show --json`");

    let token = csrf(&server);
    let done = post(&server, "/review/identity/approve", &[("csrf", &token)]);
    assert_eq!(result_commit(&done), env.head());
    let log = env.git(&["log", "-1", "--format=%an%n%B"]);
    assert!(log.starts_with("reflection:r-001\n") && log.contains("Approval: approved"), "{log}");
    assert!(log.contains("consolidate approve (by user:tester)"), "{log}");
    assert!(env.read("IDENTITY.md").contains("A careful helper who sometimes hurries."));
    assert!(!env.path("memory/meta/pending-identity.md").exists());
    env.assert_clean_tree();
}

#[test]
fn a_critical_change_is_acknowledged_by_the_person_serving() {
    let env = TestEnv::initialized();
    let soul = env.read("SOUL.md") + "Be brief.\n";
    env.write("SOUL.md", &soul);
    env.run(["sync", "--actor", "user:ann"]).success();
    let changed = env.head();
    let server = WebServer::start(&env, &[]);
    let page = server.get("/review");
    assert!(page.body.contains(r#"<tr id="critical-1" class="critical">"#), "{}", page.body);
    assert!(page.body.contains(&format!("{}:SOUL.md", &changed[..8])), "{}", page.body);

    let token = csrf(&server);
    let id = format!("{}:SOUL.md", &changed[..8]);
    let done = post(&server, "/review/critical/ack", &[("csrf", &token), ("id", &id)]);
    assert_eq!(result_commit(&done), env.head());
    assert!(done.body.contains("acknowledged 1 critical change"), "{}", done.body);
    let last = env.audit_lines().pop().unwrap();
    assert!(
        last.contains(&format!("| ACK | SOUL.md | user:tester | — | acknowledged {changed} by")),
        "{last}"
    );
    let review = json(&server.get("/api/review").body);
    assert_eq!(review["critical"], serde_json::json!([]), "{review}");
    // Nothing left: acknowledging all again commits nothing.
    let head = env.head();
    let again = post(&server, "/review/critical/ack", &[("csrf", &token)]);
    assert_eq!(again.status, 200, "{again:?}");
    assert!(again.body.contains("nothing to acknowledge"), "{}", again.body);
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

#[test]
fn a_reflection_block_that_no_longer_applies_is_shown_as_a_problem_and_can_be_rejected() {
    let env = TestEnv::initialized();
    env.run(["remember", "--entity", "person--ann", "Ann likes tea"]).success();
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
    let text = "Tea.\n\nOPERATION: REWRITE\nTARGET: entity:person--ann#Ann likes tea\nCONTENT: Ann likes green tea\nREASON: she said so\n---\n";
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    // A person removes the line the block rewrites.
    let ann = env.read("memory/graph/entities/person--ann.md");
    env.write("memory/graph/entities/person--ann.md", &ann.replace("- Ann likes tea\n", ""));
    env.run(["sync", "--actor", "user:ann"]).success();
    let cli = env.run(["reflect", "show"]).output();
    assert_ne!(cli.code, 0, "{cli}");

    let server = WebServer::start(&env, &[]);
    let page = server.get("/review");
    assert_eq!(page.status, 200, "the rest of the review still shows: {page:?}");
    let message = cli.stderr.lines().next().unwrap().trim_start_matches("error: ");
    let message = message.replace("[TMP]", &env.home.display().to_string());
    let escaped = message
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;");
    assert!(page.body.contains(&escaped), "the CLI's error {message:?}: {}", page.body);
    assert!(!page.body.contains(r#"id="reflection-approve""#), "{}", page.body);
    let review = json(&server.get("/api/review").body);
    assert_eq!(review["reflection"], serde_json::Value::Null, "{review}");
    assert!(review["reflection_problem"]["message"].is_string(), "{review}");

    let token = csrf(&server);
    let head = env.head();
    let refused = post(&server, "/review/reflection/approve", &[("csrf", &token), ("blocks", "0")]);
    assert!(refused.status == 400 || refused.status == 409, "{refused:?}");
    assert_eq!(env.head(), head, "nothing committed");
    let done = post(&server, "/review/reflection/reject", &[("csrf", &token)]);
    assert_eq!(result_commit(&done), env.head());
    assert!(done.body.contains("reflection #1 rejected: no reason given"), "{}", done.body);
    env.assert_clean_tree();
}

#[test]
fn the_json_twins_approve_only_some_blocks_and_acknowledge_with_the_cli_reports() {
    let env = submitted_reflection_and_critical_change();
    let server = WebServer::start(&env, &[]);
    let token = csrf(&server);

    let out = post_json(&server, "/api/review/reflection/approve", &token, r#"{"only": [2]}"#);
    assert_eq!(out.status, 200, "{out:?}");
    let v = json(&out.body);
    assert_eq!(v["commit"], env.head().as_str(), "{v}");
    assert_eq!(v["operations"][0]["outcome"], "not approved", "{v}");
    assert_eq!(v["operations"][1]["outcome"], "applied", "{v}");
    let ann = env.read("memory/graph/entities/person--ann.md");
    assert!(ann.contains("Ann reviews on Fridays") && !ann.contains("moved her team"), "{ann}");
    // Nothing waits: the twin refuses as the CLI does (a rule, 409), and commits nothing.
    let head = env.head();
    let again = post_json(&server, "/api/review/reflection/approve", &token, "{}");
    assert_eq!(again.status, 409, "{again:?}");
    assert!(json(&again.body)["error"]["hint"].is_string(), "{}", again.body);
    assert_eq!(env.head(), head);

    let out = post_json(&server, "/api/review/critical/ack", &token, "{}");
    assert_eq!(out.status, 200, "{out:?}");
    let v = json(&out.body);
    // The hand edit of SOUL.md, and IDENTITY.md's new self-awareness line from the approval.
    let files: Vec<&str> =
        v["acknowledged"].as_array().unwrap().iter().map(|c| c["file"].as_str().unwrap()).collect();
    assert_eq!(files, ["SOUL.md", "IDENTITY.md"], "{v}");
    assert_eq!(v["commit"], env.head().as_str(), "{v}");
    env.assert_clean_tree();
}
