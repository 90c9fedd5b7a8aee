//! Library tests of `ops::init`, `ops::remember` and `ops::search`: real git and a real tantivy
//! index in a temp folder, no binary. Each change is one commit with one audit line per file.

use cogmem::audit::Actor;
use cogmem::index::search::SearchOptions;
use cogmem::model::{EntityId, Store};
use cogmem::ops::remember::{RememberReport, RememberRequest, remember};
use cogmem::ops::{init, search};

use crate::common::{TestEnv, clock};

fn request(text: &str) -> RememberRequest {
    RememberRequest::new(text, Actor::parse("test-agent").unwrap()).unwrap()
}

fn written(report: &RememberReport) -> Vec<(Store, &str)> {
    report.written.iter().map(|u| (u.store, u.path.as_str())).collect()
}

#[test]
fn init_starts_the_history_and_a_second_run_changes_nothing() {
    let env = TestEnv::new();
    let first = init::init(&env.root, &clock("2026-12-01T09:00:00Z")).unwrap();
    assert!(first.repository_created && !first.existing_workspace, "{first:#?}");
    assert!(first.created.iter().any(|f| f == "MEMORY.md"), "{first:#?}");
    assert_eq!(env.commit_count(), 1);
    env.assert_clean_tree();
    let again = init::init(&env.root, &clock("2026-12-01T10:00:00Z")).unwrap();
    assert!(again.existing_workspace && !again.repository_created, "{again:#?}");
    assert_eq!((again.commit, again.created.len()), (None, 0));
    assert_eq!(env.commit_count(), 1);
    cogmem::Workspace::open(&env.root).unwrap();
}

/// One request per store: each is one commit, and lands in the store's file.
#[test]
fn remember_writes_each_store_as_one_commit() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let now = clock("2026-12-01T10:15:00Z");
    let mut episode = request("Alice prefers green tea");
    episode.stores = vec![Store::Episodic];
    let mut core = request("Ship Atlas on Friday");
    core.stores = vec![Store::Core];
    let mut semantic = request("Alice moved to Lisbon");
    semantic.entities = vec![EntityId::parse("person--alice").unwrap()];
    let mut procedure = request("1. run the tests\n2. tag the release\n3. push");
    procedure.stores = vec![Store::Procedural];
    procedure.title = Some("Release the app".into());
    let mut vault = request("the spare key is under the blue pot");
    vault.stores = vec![Store::Vault];
    let cases = [
        (episode, Store::Episodic, "memory/episodes/2026-12-01.md", "Alice prefers green tea"),
        (core, Store::Core, "MEMORY.md", "Ship Atlas on Friday"),
        (
            semantic,
            Store::Semantic,
            "memory/graph/entities/person--alice.md",
            "Alice moved to Lisbon",
        ),
        (procedure, Store::Procedural, "memory/procedures/release-the-app.md", "tag the release"),
        (
            vault,
            Store::Vault,
            "memory/vault/the-spare-key-is-under-the-blue-pot.md",
            "the spare key is under the blue pot",
        ),
    ];
    for (req, store, path, text) in cases {
        let report = env.changes(|| remember(&ws, &req, &now).unwrap());
        // An episode also links (and so creates) the entity it names (issue 22).
        let linked = (store == Store::Episodic)
            .then_some((Store::Semantic, "memory/graph/entities/person--alice.md"));
        let want: Vec<(Store, &str)> = std::iter::once((store, path)).chain(linked).collect();
        assert_eq!(written(&report), want, "input: {:?}", req.text);
        assert!(report.commit.is_some() && report.duplicates.is_empty(), "{report:#?}");
        assert!(report.files.iter().any(|f| f == "memory/meta/audit.log"), "{report:#?}");
        assert!(env.read(path).contains(text), "{path}:\n{}", env.read(path));
        let line =
            env.audit_lines().into_iter().rev().find(|l| l.contains(&format!(" | {path} | ")));
        let line = line.unwrap_or_else(|| panic!("no audit line for {path}"));
        assert!(line.starts_with("2026-12-01T10:15:00Z | "), "{line}");
        assert!(line.contains(" | test-agent | auto | "), "{line}");
    }
    assert_eq!(env.commit_count(), 6);
}

/// Several stores in one request are still one commit.
#[test]
fn several_stores_are_one_commit() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let mut req = request("We chose Postgres for Atlas");
    req.stores = vec![Store::Episodic, Store::Core];
    req.entities = vec![EntityId::parse("project--atlas").unwrap()];
    let report = env.changes(|| remember(&ws, &req, &clock("2026-12-01T10:00:00Z")).unwrap());
    assert_eq!(
        written(&report),
        [
            (Store::Episodic, "memory/episodes/2026-12-01.md"),
            (Store::Semantic, "memory/graph/entities/tool--postgres.md"),
            (Store::Core, "MEMORY.md"),
            (Store::Semantic, "memory/graph/entities/project--atlas.md"),
        ]
    );
    let subject = env.git(&["log", "-1", "--format=%s"]);
    assert!(subject.ends_with("— We chose Postgres for Atlas\n"), "{subject}");
}

/// The clock decides the day file, the entry's time, the audit time and the commit time.
#[test]
fn the_clock_decides_every_timestamp() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let report = env
        .changes(|| remember(&ws, &request("Bob called"), &clock("2026-12-03T14:30:09Z")).unwrap());
    assert_eq!(
        written(&report),
        [
            (Store::Episodic, "memory/episodes/2026-12-03.md"),
            (Store::Semantic, "memory/graph/entities/person--bob.md")
        ]
    );
    assert_eq!(report.written[0].id, "episode:2026-12-03:14:30");
    assert!(env.read("memory/episodes/2026-12-03.md").contains("## 14:30 | fact |"));
    assert!(env.audit_lines().last().unwrap().starts_with("2026-12-03T14:30:09Z | "));
    assert_eq!(
        env.git(&["log", "-1", "--format=%ad", "--date=iso-strict"]),
        "2026-12-03T14:30:09Z\n"
    );
    // `at` dates the entry, not the change.
    let mut req = request("Carol called");
    req.at = cogmem::date::parse_time("2026-12-02T08:05:00Z", &clock("2026-12-03T15:00:00Z").0);
    assert!(req.at.is_some());
    let report = env.changes(|| remember(&ws, &req, &clock("2026-12-03T15:00:00Z")).unwrap());
    assert_eq!(report.written[0].id, "episode:2026-12-02:08:05");
}

/// The same memory twice is reported as a duplicate, with no commit.
#[test]
fn a_duplicate_makes_no_commit() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let mut req = request("Alice moved to Lisbon");
    req.entities = vec![EntityId::parse("person--alice").unwrap()];
    env.changes(|| remember(&ws, &req, &clock("2026-12-01T10:00:00Z")).unwrap());
    let head = env.head();
    let again = remember(&ws, &req, &clock("2026-12-01T10:05:00Z")).unwrap();
    assert!(again.commit.is_none() && again.written.is_empty(), "{again:#?}");
    assert_eq!(again.duplicates.len(), 1, "{again:#?}");
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

/// What is remembered is found by the next search, which brings the index up to date first.
#[test]
fn search_finds_what_was_remembered() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let now = clock("2026-12-01T10:00:00Z");
    let opts = SearchOptions { limit: 10, ..Default::default() };
    assert!(search::search(&ws, "marmalade", &opts, &now).unwrap().hits.is_empty());
    let report = remember(&ws, &request("Bob hates orange marmalade"), &now).unwrap();
    let mut req = request("明日の会議は10時");
    req.stores = vec![Store::Core];
    remember(&ws, &req, &now).unwrap();
    let found = search::search(&ws, "marmalade", &opts, &now).unwrap();
    let hits: Vec<(&str, &str)> =
        found.hits.iter().map(|h| (h.id.as_str(), h.path.as_str())).collect();
    assert_eq!(hits, [(report.written[0].id.as_str(), "memory/episodes/2026-12-01.md")]);
    assert!(found.hits[0].text.contains("Bob hates orange marmalade"), "{found:#?}");
    let found = search::search(&ws, "会議", &opts, &now).unwrap();
    assert_eq!(found.hits.first().map(|h| h.path.as_str()), Some("MEMORY.md"), "{found:#?}");
    // A store filter leaves the other stores out.
    let core_only = SearchOptions { store: Some(Store::Core), ..opts };
    assert!(search::search(&ws, "marmalade", &core_only, &now).unwrap().hits.is_empty());
    env.assert_clean_tree();
}

/// A relation names both ends; the subject's entity file records it, and the graph index
/// lists both.
#[test]
fn a_relation_writes_the_subject_and_the_graph_index() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let mut req = request("Alice works on Atlas");
    req.relations = vec![
        cogmem::ops::remember::Relation::parse("person--alice|works-on|project--atlas").unwrap(),
    ];
    let report = env.changes(|| remember(&ws, &req, &clock("2026-12-01T10:00:00Z")).unwrap());
    assert!(report.files.iter().any(|f| f == "memory/graph/index.md"), "{report:#?}");
    let alice = env.read("memory/graph/entities/person--alice.md");
    assert!(alice.contains("works-on") && alice.contains("project--atlas"), "{alice}");
    let index = env.read("memory/graph/index.md");
    assert!(index.contains("person--alice") && index.contains("project--atlas"), "{index}");
}

/// `hear` joins the text layer and the operations: a remember trigger is routed and written as
/// one commit by `bot:trigger-remember`; a dry run and a message without a trigger write nothing.
#[test]
fn hear_routes_and_writes_a_remember_trigger() {
    use cogmem::ops::hear::{HearOptions, HeardAction, hear};
    let env = TestEnv::new();
    let ws = env.lib_init();
    let now = clock("2026-12-01T10:00:00Z");
    let head = env.head();
    let dry = HearOptions { dry_run: true, ..Default::default() };
    let message = "Remember that I prefer TypeScript over JavaScript.";
    let r = hear(&ws, message, &dry, &now).unwrap();
    assert!(
        matches!(r.action, HeardAction::Remembered { commit: None, dry_run: true, .. }),
        "{r:#?}"
    );
    let r = hear(&ws, "I remember when we met", &HearOptions::default(), &now).unwrap();
    assert!(r.trigger.is_none() && matches!(r.action, HeardAction::None), "{r:#?}");
    assert_eq!(env.head(), head);
    let r = env.changes(|| hear(&ws, message, &HearOptions::default(), &now).unwrap());
    let HeardAction::Remembered { written, .. } = &r.action else { panic!("{r:#?}") };
    // One semantic unit per entity named (the user, TypeScript, JavaScript), then the bullet.
    let mut stores: Vec<Store> = written.iter().map(|u| u.store).collect();
    stores.dedup();
    assert_eq!(stores, [Store::Semantic, Store::Core], "{r:#?}");
    assert_eq!(env.git(&["log", "-1", "--format=%an"]), "bot:trigger-remember\n");
    assert!(env.read("MEMORY.md").contains("User prefers TypeScript over JavaScript."));
}
