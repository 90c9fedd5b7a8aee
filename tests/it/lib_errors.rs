//! Library tests of typical failures: the `ErrorKind` (which decides the exit code) and the
//! hint of each, and that a refused operation leaves no commit and no file changed.

use cogmem::audit::Actor;
use cogmem::index::search::SearchOptions;
use cogmem::model::{EntityId, Store};
use cogmem::ops::hear::{HearOptions, hear};
use cogmem::ops::propose::{ProposeRequest, propose};
use cogmem::ops::remember::{Relation, RememberRequest, remember};
use cogmem::{Error, ErrorKind, Workspace};

use crate::common::{TestEnv, clock};

fn now() -> cogmem::FixedClock {
    clock("2026-12-01T10:00:00Z")
}

fn request(text: &str) -> RememberRequest {
    RememberRequest::new(text, Actor::parse("test-agent").unwrap()).unwrap()
}

/// Checks an error's kind, that its message contains `message` and its hint contains `hint`.
#[track_caller]
fn check(e: &Error, kind: ErrorKind, message: &str, hint: &str) {
    assert_eq!(e.kind(), kind, "{e}");
    assert!(e.to_string().contains(message), "{e:?} does not contain {message:?}");
    let h = e.hint().unwrap_or_default();
    assert!(h.contains(hint), "hint {h:?} does not contain {hint:?} ({e})");
}

/// Runs `f`, which must fail, and checks that it left no commit and no changed file.
#[track_caller]
fn refused<T: std::fmt::Debug>(env: &TestEnv, f: impl FnOnce() -> cogmem::Result<T>) -> Error {
    let head = env.head();
    let before = env.snapshot();
    let e = f().expect_err("the operation is refused");
    assert_eq!(env.head(), head, "no commit: {e}");
    assert_eq!(env.snapshot(), before, "no file changed: {e}");
    e
}

#[test]
fn no_workspace() {
    let env = TestEnv::new();
    std::fs::create_dir_all(&env.root).unwrap();
    let e = Workspace::open(&env.root).map(|_| ()).map_err(Error::from).unwrap_err();
    check(&e, ErrorKind::User, "is not a cogmem workspace", "`cogmem init`");
}

/// Bad ids and relations are the user's fault, and the hint shows the form.
#[test]
fn bad_entity_ids_and_relations() {
    for input in ["alice", "Person--Alice", "person--", "person--../x", ""] {
        let e = Error::from(EntityId::parse(input).unwrap_err());
        check(&e, ErrorKind::User, "", "`TYPE--SLUG`");
    }
    for input in ["person--alice|works-on", "person--alice|Works On|project--atlas", "a|b|c"] {
        let e = Error::from(Relation::parse(input).unwrap_err());
        assert_eq!(e.kind(), ErrorKind::User, "input: {input:?}: {e}");
        assert!(e.hint().is_some(), "input: {input:?}: {e}");
    }
}

/// Requests that cannot be carried out as given are refused before anything is written.
#[test]
fn bad_requests() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let e = Error::from(RememberRequest::new(" \n ", Actor::manual()).unwrap_err());
    check(&e, ErrorKind::User, "empty", "stdin");
    let mut req = request("Alice likes tea");
    req.stores = vec![Store::Semantic];
    let e = refused(&env, || remember(&ws, &req, &now()));
    check(&e, ErrorKind::User, "needs an entity", "--entity person--alice");
    let mut req = request("Alice likes tea");
    req.section = Some(cogmem::store::core_memory::CoreSection::ActiveContext);
    let e = refused(&env, || remember(&ws, &req, &now()));
    check(&e, ErrorKind::User, "--section", "add `--store core`");
    let mut req = request("Alice likes tea");
    req.title = Some("Tea".into());
    let e = refused(&env, || remember(&ws, &req, &now()));
    check(&e, ErrorKind::User, "--title", "add `--store procedural`");
    let opts = SearchOptions { limit: 10, ..Default::default() };
    let e = cogmem::ops::search::search(&ws, " the ", &opts, &now()).unwrap_err();
    check(&e, ErrorKind::User, "no words to search for", "very common words");
}

/// A sub-agent may propose, not write: `remember`, `forget` and `hear` refuse it (a rule, exit
/// 4) and leave everything as it was.
#[test]
fn sub_agent_writes_are_refused() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let sub = Actor::parse("subagent:researcher").unwrap();
    let hint = "hand the memory to the main agent";
    let req = RememberRequest::new("Alice likes tea", sub.clone()).unwrap();
    let e = refused(&env, || remember(&ws, &req, &now()));
    check(&e, ErrorKind::Conflict, "subagent:researcher is a sub-agent", hint);
    let id = remember(&ws, &request("Bob likes coffee"), &now()).unwrap().written[0].id.clone();
    let opts = cogmem::ops::forget::ForgetOptions {
        permanent: false,
        force: false,
        actor: sub.clone(),
        trigger: "test".into(),
    };
    let e = refused(&env, || cogmem::ops::forget::forget(&ws, &[id], &opts, &now()));
    check(&e, ErrorKind::Conflict, "is a sub-agent", hint);
    let opts = HearOptions { caller: Some(sub), ..Default::default() };
    let e = refused(&env, || hear(&ws, "Remember that the demo is on Friday", &opts, &now()));
    check(&e, ErrorKind::Conflict, "sub-agent", "");
    // Proposing is what a sub-agent may do: one commit, to the proposals file.
    let req = ProposeRequest {
        text: "Alice likes tea".into(),
        from: "researcher".into(),
        store: None,
        entities: Vec::new(),
        relations: Vec::new(),
        confidence: None,
        core_worthy: false,
        trigger: "test".into(),
        allow_secret: false,
    };
    let report = env.changes(|| propose(&ws, &req, &now()).unwrap());
    assert_eq!(report.number, 1);
    assert!(env.read("memory/meta/pending-memories.md").contains("Alice likes tea"));
}

/// Text that looks like a credential is refused without echoing it; `allow_secret` lets it in.
#[test]
fn secrets_are_refused_unless_allowed() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let token = format!("{}_{}", "ghp", "aB3dE5gH7jK9mN1pQ3rS5tU7vW9xY1zA2bC4");
    let mut req = request(&format!("the CI token is {token}"));
    let e = refused(&env, || remember(&ws, &req, &now()));
    check(&e, ErrorKind::Conflict, "github-token", "--allow-secret");
    assert!(!e.to_string().contains(&token), "{e}");
    req.allow_secret = true;
    env.changes(|| remember(&ws, &req, &now()).unwrap());
}

/// A hand edit to a file the change must write is never overwritten: the change is refused
/// and the edit stays.
#[test]
fn hand_edits_in_the_way() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let edited = format!("{}\n- a line typed by hand\n", env.read("MEMORY.md"));
    env.write("MEMORY.md", &edited);
    let mut req = request("Ship Atlas on Friday");
    req.stores = vec![Store::Core];
    let head = env.head();
    let e = remember(&ws, &req, &now()).unwrap_err();
    check(&e, ErrorKind::Conflict, "MEMORY.md", "");
    assert_eq!(env.head(), head);
    assert_eq!(env.read("MEMORY.md"), edited);
    // A store the edit is not in is still writable.
    let r = remember(&ws, &request("Bob called"), &now()).unwrap();
    assert_eq!(env.commit_count(), 2, "{r:#?}");
    assert_eq!(env.git_status(), " M MEMORY.md\n", "only the hand edit is left uncommitted");
}

/// A lock held by another command makes a change wait, then fail as the user's to retry.
#[test]
fn a_held_lock_times_out() {
    let env = TestEnv::new();
    env.lib_init();
    env.write("cogmem.toml", &format!("{}\n[lock]\ntimeout_ms = 50\n", env.read("cogmem.toml")));
    env.git_commit_all("a short lock wait");
    let ws = Workspace::open(&env.root).unwrap();
    let guard = ws.lock().unwrap();
    let e = refused(&env, || remember(&ws, &request("Bob called"), &now()));
    check(&e, ErrorKind::User, "is locked by another cogmem command", "lock.timeout_ms");
    drop(guard);
    env.changes(|| remember(&ws, &request("Bob called"), &now()).unwrap());
}
