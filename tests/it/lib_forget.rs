//! Library tests of `ops::forget`: forget and restore round trips, pinned memories, unknown and
//! already-forgotten ids, permanent deletion. Real git and a real index, no binary.

use cogmem::audit::Actor;
use cogmem::index::search::SearchOptions;
use cogmem::model::{EntityId, Store};
use cogmem::ops::forget::{self, ForgetOptions};
use cogmem::ops::remember::{RememberRequest, remember};
use cogmem::{ErrorKind, Workspace};

use crate::common::{TestEnv, clock};

/// The ids of the memories `setup` writes, by store.
struct Ids {
    episode: String,
    core: String,
    entity: String,
    vault: String,
}

/// A workspace holding one memory in each of four stores.
fn setup() -> (TestEnv, Workspace, Ids) {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let now = clock("2026-12-01T10:00:00Z");
    let actor = Actor::parse("test-agent").unwrap();
    let mut ids = Vec::new();
    for (text, store, entity) in [
        ("the neighbour hates orange marmalade", Store::Episodic, None),
        ("Ship Atlas on Friday", Store::Core, None),
        ("Alice moved to Lisbon", Store::Semantic, Some("person--alice")),
        ("the spare key is under the blue pot", Store::Vault, None),
    ] {
        let mut req = RememberRequest::new(text, actor.clone()).unwrap();
        if let Some(e) = entity {
            req.entities = vec![EntityId::parse(e).unwrap()];
        } else {
            req.stores = vec![store];
        }
        let report = remember(&ws, &req, &now).unwrap();
        assert_eq!(report.written.len(), 1, "{report:#?}");
        ids.push(report.written[0].id.clone());
    }
    // One memory each: the texts name no entity that an episode would link (issue 22).
    let [episode, core, entity, vault] = ids.try_into().unwrap();
    assert_eq!(entity, "entity:person--alice");
    (env, ws, Ids { episode, core, entity, vault })
}

fn opts() -> ForgetOptions {
    ForgetOptions {
        permanent: false,
        force: false,
        actor: Actor::parse("bot:trigger-forget").unwrap(),
        trigger: "cogmem forget".into(),
    }
}

fn later() -> cogmem::FixedClock {
    clock("2026-12-02T08:00:00Z")
}

fn without_audit_log(env: &TestEnv) -> Vec<(String, Vec<u8>)> {
    env.snapshot().into_iter().filter(|(p, _)| p != "memory/meta/audit.log").collect()
}

/// Forget then restore puts every byte back, the audit log aside; each is one commit.
#[test]
fn forget_and_restore_round_trip() {
    let (env, ws, ids) = setup();
    let before = without_audit_log(&env);
    let search = |q: &str| {
        let opts = SearchOptions { limit: 10, ..Default::default() };
        cogmem::ops::search::search(&ws, q, &opts, &later()).unwrap().hits.len()
    };
    assert_eq!(search("marmalade"), 1);
    let forget_ids = [ids.core.clone(), ids.entity.clone(), ids.episode.clone()];
    let report = env.changes(|| forget::forget(&ws, &forget_ids, &opts(), &later()).unwrap());
    let gone: Vec<(&str, Store)> =
        report.forgotten.iter().map(|f| (f.id.as_str(), f.store)).collect();
    assert_eq!(
        gone,
        [
            (ids.core.as_str(), Store::Core),
            (ids.entity.as_str(), Store::Semantic),
            (ids.episode.as_str(), Store::Episodic)
        ]
    );
    assert!(!env.read("MEMORY.md").contains("Ship Atlas on Friday"));
    assert!(!env.read("memory/graph/index.md").contains("person--alice"));
    assert!(env.path("memory/graph/entities/person--alice.md").is_file(), "archiving keeps it");
    assert!(
        env.audit_lines()
            .iter()
            .any(|l| l.contains(" | ARCHIVE | MEMORY.md | bot:trigger-forget | ")),
        "{:#?}",
        env.audit_lines()
    );
    assert_eq!(search("marmalade"), 0, "a forgotten memory is not found");
    assert!(forget::find(&ws, "Alice Lisbon", 10).unwrap().is_empty());
    for id in [&ids.entity, &ids.core, &ids.episode] {
        let actor = Actor::parse("test-agent").unwrap();
        let r = env.changes(|| forget::restore(&ws, id, actor, &later()).unwrap());
        assert_eq!(&r.id, id);
    }
    assert_eq!(without_audit_log(&env), before);
    assert_eq!(search("marmalade"), 1);
}

/// Forgetting a forgotten memory reports it and makes no commit.
#[test]
fn forgetting_twice_makes_no_second_commit() {
    let (env, ws, ids) = setup();
    let one = [ids.episode.clone()];
    env.changes(|| forget::forget(&ws, &one, &opts(), &later()).unwrap());
    let head = env.head();
    let again = forget::forget(&ws, &one, &opts(), &later()).unwrap();
    assert_eq!((again.commit, again.already_forgotten), (None, one.to_vec()));
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

/// Vault memories are pinned: refused (a rule, exit 4) without `force`, nothing changed.
#[test]
fn pinned_memories_need_force() {
    let (env, ws, ids) = setup();
    let head = env.head();
    let both = [ids.episode.clone(), ids.vault.clone()];
    let e = forget::forget(&ws, &both, &opts(), &later()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Conflict, "{e}");
    assert_eq!(e.to_string(), format!("{} is pinned and cannot be forgotten", ids.vault));
    assert!(e.hint().unwrap().contains("--force`"), "{:?}", e.hint());
    assert_eq!(env.head(), head, "nothing is forgotten when one id is refused");
    env.assert_clean_tree();
    let forced = ForgetOptions { force: true, ..opts() };
    let r = env.changes(|| forget::forget(&ws, &both, &forced, &later()).unwrap());
    assert_eq!(r.forgotten.len(), 2);
}

/// An unknown id among known ones fails the whole request; restoring what is not forgotten
/// fails too. Both are the user's fault (exit 1) and say where to find ids.
#[test]
fn unknown_and_not_forgotten_ids() {
    let (env, ws, ids) = setup();
    let head = env.head();
    let e = forget::forget(
        &ws,
        &[ids.episode.clone(), "episode:1999-01-01:00:00".into()],
        &opts(),
        &later(),
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::User, "{e}");
    assert!(e.to_string().contains("episode:1999-01-01:00:00"), "{e}");
    assert!(e.hint().unwrap().contains("cogmem forget QUERY --dry-run"), "{:?}", e.hint());
    let e = forget::restore(&ws, &ids.core, Actor::manual(), &later()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::User, "{e}");
    assert!(e.to_string().contains("is not forgotten"), "{e}");
    assert!(e.hint().unwrap().contains("cogmem audit --action archive"), "{:?}", e.hint());
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

/// Permanent deletion removes an entity's file and leaves a tombstone for an episode entry;
/// neither can be restored, and no other id moves.
#[test]
fn permanent_deletion() {
    let (env, ws, ids) = setup();
    let permanent = ForgetOptions { permanent: true, ..opts() };
    let both = [ids.entity.clone(), ids.episode.clone()];
    let r = env.changes(|| forget::forget(&ws, &both, &permanent, &later()).unwrap());
    assert!(r.permanent && r.forgotten.len() == 2, "{r:#?}");
    assert!(!env.path("memory/graph/entities/person--alice.md").exists());
    let day = env.read("memory/episodes/2026-12-01.md");
    assert!(!day.contains("marmalade"), "{day}");
    for id in &both {
        assert!(forget::restore(&ws, id, Actor::manual(), &later()).is_err(), "{id}");
    }
    let left: Vec<String> =
        forget::find(&ws, "Atlas Friday", 10).unwrap().into_iter().map(|c| c.id).collect();
    assert_eq!(left, [ids.core]);
}

/// `find` ranks candidates by the query's words and marks pinned ones.
#[test]
fn find_offers_candidates() {
    let (_env, ws, ids) = setup();
    let found = forget::find(&ws, "spare key", 10).unwrap();
    let got: Vec<(&str, bool)> = found.iter().map(|c| (c.id.as_str(), c.pinned)).collect();
    assert_eq!(got, [(ids.vault.as_str(), true)]);
    assert!(forget::find(&ws, "zebra", 10).unwrap().is_empty());
    // The fact that holds the word comes first, with its own id, then its entity.
    let found = forget::find(&ws, "Lisbon", 10).unwrap();
    assert!(found[0].id.starts_with("entity:person--alice:facts:"), "{found:?}");
    assert_eq!(found[0].excerpt, "Alice moved to Lisbon", "{found:?}");
    assert_eq!((found[1].id.as_str(), found[1].store), ("entity:person--alice", Store::Semantic));
    assert_eq!(forget::clear_best(&found).map(|c| c.id.as_str()), Some(found[0].id.as_str()));
}
