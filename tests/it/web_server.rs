//! `cogmem serve`: the real binary on loopback, spoken to over HTTP. Security (token, cookie,
//! CSRF, Host, headers), the overview, the JSON API and a clean stop.

use crate::common::TestEnv;
use crate::common::web::WebServer;

#[test]
fn the_overview_needs_the_token_then_the_cookie() {
    let env = TestEnv::initialized();
    let server = WebServer::start(&env, &[]);
    assert!(server.url.starts_with("http://127.0.0.1:"), "{}", server.url);
    // Without the token: refused, and no workspace details shown.
    let refused = server.send("GET", "/", &[], "");
    assert_eq!(refused.status, 401, "{refused:?}");
    assert!(!refused.body.contains(env.root.to_str().unwrap()), "{}", refused.body);
    // The first visit trades the token for a cookie and drops it from the address.
    let first = server.send("GET", &format!("/?token={}", server.token), &[], "");
    assert_eq!(first.status, 303, "{first:?}");
    assert_eq!(first.header("location"), Some("/"));
    let cookie = first.header("set-cookie").expect("a cookie");
    assert!(cookie.starts_with(&server.cookie()), "{cookie}");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    // With the cookie: the overview.
    let page = server.get("/");
    assert_eq!(page.status, 200, "{page:?}");
    assert!(page.body.contains("<h1>Overview</h1>"), "{}", page.body);
    assert!(page.header("content-security-policy").unwrap().contains("default-src 'none'"));
}
