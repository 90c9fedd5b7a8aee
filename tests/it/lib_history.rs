//! Library tests of `ops::history` and `ops::browse` (the web view's data, issue 21) on real git
//! history made by the real binary: a memory's changes are its own even in a shared day file,
//! its earlier wording is followed back, commits are found by a short id and never by a ref
//! name, and each audit line finds the commit that wrote it.

use cogmem::ops::{browse, history};

use crate::common::{TestEnv, clock};

fn open(env: &TestEnv) -> cogmem::Workspace {
    cogmem::Workspace::open(&env.root).unwrap()
}

fn edit(env: &TestEnv, rel: &str, from: &str, to: &str) {
    let text = env.read(rel);
    assert!(text.contains(from), "{text}");
    env.write(rel, &text.replace(from, to));
    env.mutate(["sync", "--force"]);
}

#[test]
fn a_memory_history_keeps_its_own_hunks_and_follows_its_old_wording() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Carol's flat is on the fourth floor"]);
    env.mutate(["remember", "Dan sells bicycles near the station"]);
    let day = "memory/episodes/2026-12-01.md";
    edit(&env, day, "fourth floor", "fifth floor");
    edit(&env, day, "Dan sells bicycles", "Dan repairs bicycles");
    edit(&env, day, "fifth floor", "sixth floor");
    let ws = open(&env);
    let all = cogmem::store::units::list(&ws);
    let unit = all.units.iter().find(|u| u.text.contains("sixth floor")).unwrap().clone();
    let h = history::memory(&ws, &unit, 50).unwrap();
    assert!(h.complete, "{h:#?}");
    let diffs: Vec<&str> = h.changes.iter().map(|c| c.diff.as_str()).collect();
    assert_eq!(diffs.len(), 3, "sixth, fifth, created — not Dan's two commits: {diffs:#?}");
    assert!(diffs[0].contains("-Carol's flat is on the fifth floor"), "{}", diffs[0]);
    assert!(diffs[0].contains("+Carol's flat is on the sixth floor"), "{}", diffs[0]);
    assert!(diffs[1].contains("+Carol's flat is on the fifth floor"), "{}", diffs[1]);
    assert!(diffs[2].contains("+Carol's flat is on the fourth floor"), "{}", diffs[2]);
    for d in &diffs {
        assert!(!d.contains("+Dan") && !d.contains("-Dan"), "another entry's change: {d}");
    }
    assert_eq!(h.changes[2].commit.actor, "test-agent");
    // A memory that is a whole file has every change of its file.
    env.mutate([
        "remember",
        "Erin plays the cello",
        "--relation",
        "person--erin|prefers|concept--cello",
    ]);
    let ws = open(&env);
    let page = browse::memory(&ws, "entity:person--erin", &clock(&env.peek_now())).unwrap();
    assert_eq!(page.history.changes.len(), 1, "{:#?}", page.history);
    assert!(
        page.history.changes[0]
            .diff
            .starts_with("--- /dev/null\n+++ b/memory/graph/entities/person--erin.md\n")
    );
    assert!(page.relations.iter().any(|l| l.other == "concept--cello"), "{:#?}", page.relations);
}

#[test]
fn a_core_bullet_history_is_its_own_lines_of_memory_md() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--store", "core", "We chose Postgres for Atlas"]);
    env.mutate(["remember", "--store", "core", "Hana is the user's sister"]);
    let ws = open(&env);
    let all = cogmem::store::units::list(&ws);
    let unit = all.units.iter().find(|u| u.text == "We chose Postgres for Atlas").unwrap();
    let h = history::memory(&ws, unit, 50).unwrap();
    assert_eq!(h.changes.len(), 1, "{h:#?}");
    assert!(h.changes[0].diff.contains("+- We chose Postgres for Atlas"), "{h:#?}");
    assert!(!h.changes[0].diff.contains("Hana"), "{h:#?}");
}

/// A line Markdown would misread is written with a `\` before it (`\<b>`, `\# `): the history
/// of its memory still finds the commits that wrote it.
#[test]
fn the_history_of_an_escaped_memory_finds_its_commit() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "<b>bold</b> plans for the garden"]);
    env.mutate(["remember", "# not a heading, just a hash"]);
    env.mutate(["remember", "Dan sells bicycles near the station"]);
    let day = env.read("memory/episodes/2026-12-01.md");
    assert!(day.contains("\\<b>bold</b>") && day.contains("\\# not a heading"), "{day}");
    let ws = open(&env);
    let all = cogmem::store::units::list(&ws);
    for wanted in ["<b>bold</b>", "# not a heading"] {
        let unit = all.units.iter().find(|u| u.text.starts_with(wanted)).unwrap();
        let h = history::memory(&ws, unit, 50).unwrap();
        assert_eq!(h.changes.len(), 1, "{wanted}: {h:#?}");
        assert!(!h.changes[0].diff.contains("Dan"), "{h:#?}");
    }
}

#[test]
fn commits_are_found_by_id_only_and_audit_lines_find_theirs() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Frank's birthday is in May"]);
    let ws = open(&env);
    let head = env.head();
    let full = history::commit(&ws, &head).unwrap();
    let short = history::commit(&ws, &head[..7]).unwrap();
    assert_eq!((full.commit.id.as_str(), short.commit.id.as_str()), (head.as_str(), head.as_str()));
    assert_eq!(full.commit.actor, "test-agent");
    let paths: Vec<&str> = full.files.iter().map(|f| f.path.as_str()).collect();
    assert!(paths.contains(&"memory/meta/audit.log"), "{paths:?}");
    assert!(full.files.iter().any(|f| f.diff.contains("+Frank's birthday is in May")), "{full:#?}");
    for bad in
        ["HEAD", "main", "HEAD~1", "abc", "zzzzzzz", "0000000000000000000000000000000000000000"]
    {
        let err = history::commit(&ws, bad).unwrap_err();
        assert!(err.to_string().contains("no commit of the workspace"), "{bad}: {err}");
        assert!(err.hint().is_some(), "{bad}");
    }
    let report = cogmem::ops::audit::query(&ws, &Default::default(), None).unwrap();
    let commits = history::commits_of(&ws, &report.lines).unwrap();
    assert_eq!(commits.len(), report.lines.len());
    let last = commits.last().unwrap().as_deref();
    assert_eq!(last, Some(head.as_str()), "the newest line is the newest commit's");
    assert!(commits.iter().all(Option::is_some), "{commits:?}");
}

#[test]
fn the_timeline_reads_one_month_newest_first() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Gina started the pottery class"]);
    env.set_now("2027-01-03T08:00:00Z");
    env.mutate(["remember", "Gina finished her first bowl"]);
    env.set_now("2027-01-05T08:00:00Z");
    env.mutate(["remember", "Gina glazed the bowl blue"]);
    let ws = open(&env);
    let now = clock(&env.peek_now());
    let t = browse::timeline(&ws, None, &now).unwrap();
    assert_eq!(t.month, "2027-01");
    let days: Vec<&str> = t.days.iter().map(|d| d.date.as_str()).collect();
    assert_eq!(days, ["2027-01-05", "2027-01-03"]);
    assert_eq!((t.newer.as_deref(), t.older.as_deref()), (None, Some("2026-12")));
    let dec = browse::timeline(&ws, Some("2026-12"), &now).unwrap();
    assert_eq!((dec.newer.as_deref(), dec.older.as_deref()), (Some("2027-01"), None));
    assert!(dec.days[0].entries[0].text.contains("pottery class"));
    let empty = browse::timeline(&ws, Some("2025-06"), &now).unwrap();
    assert!(empty.days.is_empty() && empty.newer.as_deref() == Some("2026-12"));
    let err = browse::timeline(&ws, Some("June"), &now).unwrap_err();
    assert!(err.to_string().contains("month"), "{err}");
}

/// `WorkspaceOptions::one_scan`: a second read trusts the first one's scan only while the
/// index manifest is as that scan left it; a read that another handle's refresh followed (it
/// rewrote the manifest) scans again and sees the edit.
#[test]
fn reads_that_share_one_scan_trust_it_only_while_the_manifest_is_as_they_left_it() {
    let env = TestEnv::initialized();
    env.run(["remember", "Alice prefers tea"]).success();
    let ws = open(&env);
    let mut options = ws.options().clone();
    options.one_scan = true;
    let shared = ws.with_options(options);
    let changed = |ws: &cogmem::Workspace| cogmem::index::open(ws, false, None).unwrap().1.changed;
    let rel = "memory/vault/garden.md";
    assert!(changed(&shared).is_empty(), "the index is current");
    env.write(rel, "# Garden\n\nZucchini.\n");
    // The same operation: the scan it made stands (the edit is for the next operation).
    assert!(changed(&shared).is_empty());
    // Another reader's refresh indexes the edit and rewrites the manifest: no longer trusted.
    assert_eq!(changed(&open(&env)), [rel]);
    env.write(rel, "# Garden\n\nPumpkins, and more of them.\n");
    assert_eq!(changed(&shared), [rel], "the manifest changed since this process's scan");
}

// See: issue 20
/// An entity's page lists every memory that names it and no other, the same from the files
/// the search index points to as from every memory: after a hand edit that takes a name out
/// of one entry (not committed) and one that adds it to another, the page follows the files.
#[test]
fn an_entity_page_lists_the_memories_that_name_it_as_the_files_say() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Had lunch with Priya at the harbour"]);
    env.mutate(["remember", "Priya recommended a book on tides"]);
    env.mutate(["remember", "The ferry was late again"]);
    let ws = open(&env);
    let now = clock(&env.peek_now());
    let entity = cogmem::store::units::list(&ws)
        .units
        .iter()
        .flat_map(|u| u.entities.clone())
        .find(|e| e.starts_with("person--priya"))
        .expect("an entity for Priya");
    let expected = |ws: &cogmem::Workspace| -> Vec<String> {
        let own = format!("entity:{entity}");
        let mut ids: Vec<String> = cogmem::store::units::list(ws)
            .units
            .into_iter()
            .filter(|u| u.id != own && u.entities.contains(&entity))
            .map(|u| u.id)
            .collect();
        ids.sort();
        ids
    };
    let listed = |ws: &cogmem::Workspace| -> Vec<String> {
        let mut ids: Vec<String> = browse::entity(ws, &entity, None, &now)
            .unwrap()
            .mentions
            .into_iter()
            .map(|m| m.id)
            .collect();
        ids.sort();
        ids
    };
    let before = expected(&ws);
    assert_eq!(before.len(), 2, "{before:?}");
    assert_eq!(listed(&ws), before);
    // By hand: the first entry stops naming Priya, the ferry's starts to.
    let day = "memory/episodes/2026-12-01.md";
    let text = env.read(day);
    let link = format!("[[{entity}]]");
    assert!(text.contains(&link), "{text}");
    let first = text.find(&link).unwrap();
    let mut edited = text.clone();
    edited.replace_range(first..first + link.len(), "");
    let edited =
        edited.replace("The ferry was late again", &format!("The ferry was late again {link}"));
    env.write(day, &edited);
    let ws = open(&env);
    let after = expected(&ws);
    assert_ne!(after, before, "the hand edit changed who names Priya");
    assert_eq!(listed(&ws), after);
}
