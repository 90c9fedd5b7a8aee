//! Issue 20, item 2: what a write costs must not grow with the history. These tests check the
//! mechanisms, never a time: a write commits its index segment without merging (merges run in
//! a process of their own), repacks roll packs up instead of adding one more each time, and
//! `scripts/gen-history` (the benchmarks' history generator) leaves a workspace that cogmem
//! accepts.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::common::{TestEnv, clock, wait_until};
use cogmem::audit::Actor;
use cogmem::index::search::SearchOptions;
use cogmem::ops::remember::{RememberRequest, remember};
use cogmem::ops::search::search;

/// The segments of the search index, as its `meta.json` lists them.
fn segments(root: &Path) -> usize {
    let meta = std::fs::read_to_string(root.join(".cogmem/index/meta.json")).unwrap();
    let meta: serde_json::Value = serde_json::from_str(&meta).unwrap();
    meta["segments"].as_array().unwrap().len()
}

// See: issue 20
/// Each write's index update commits one segment and merges nothing, however many segments
/// pile up: tantivy's own policy would merge eight of them in the command, which then waited.
/// Without a merge hook (a library caller's default) nothing merges them at all.
#[test]
fn issue_20_a_write_commits_its_segment_without_merging() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let actor = Actor::parse("test-agent").unwrap();
    let first = RememberRequest::new("Segment probe 0: the rota changes on Mondays", actor.clone());
    remember(&ws, &first.unwrap(), &clock("2026-12-01T10:00:00Z")).unwrap();
    let before = segments(&env.root);
    for i in 1..=12 {
        let text = format!("Segment probe {i}: the rota changes on day {i}");
        let req = RememberRequest::new(&text, actor.clone()).unwrap();
        // A day each: a new episode file, so no earlier document is deleted (a segment whose
        // documents are all deleted is dropped, which is no merge).
        let now = clock(&format!("2026-12-{:02}T10:00:00Z", i + 1));
        remember(&ws, &req, &now).unwrap();
        assert_eq!(segments(&env.root), before + i, "after write {i}: a merge ran in the write");
    }
    // Every memory is found, across the twelve segments.
    let opts = SearchOptions { limit: 50, ..Default::default() };
    let found = search(&ws, "rota", &opts, &clock("2026-12-14T09:00:00Z")).unwrap();
    assert_eq!(found.hits.len(), 13, "{found:#?}");
}

// See: issue 20
/// While a background merge holds tantivy's writer, a write still commits, and a search still
/// answers from the index as it is (it is neither failed nor deleted and rebuilt); the new
/// memory is indexed by the first refresh after the merge.
#[test]
fn issue_20_a_write_during_a_merge_is_indexed_after_it() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let actor = Actor::parse("test-agent").unwrap();
    let req = |text: &str| RememberRequest::new(text, actor.clone()).unwrap();
    remember(
        &ws,
        &req("Busy probe 1: the rota changes on Mondays"),
        &clock("2026-12-01T10:00:00Z"),
    )
    .unwrap();
    let index = env.root.join(".cogmem/index");
    let files = || -> Vec<String> {
        let mut f: Vec<String> = std::fs::read_dir(&index)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".idx"))
            .collect();
        f.sort();
        f
    };
    let before = files();
    // What `cogmem merge-index` holds while it merges: tantivy's writer lock.
    let merge = std::fs::File::open(index.join(".tantivy-writer.lock")).unwrap();
    merge.try_lock().unwrap();
    let report = env.changes(|| {
        remember(
            &ws,
            &req("Busy probe 2: the rota changes on Tuesdays"),
            &clock("2026-12-02T10:00:00Z"),
        )
        .unwrap()
    });
    assert!(report.commit.is_some());
    let opts = SearchOptions { limit: 50, ..Default::default() };
    let now = clock("2026-12-03T09:00:00Z");
    let found = search(&ws, "rota", &opts, &now).unwrap();
    assert_eq!(found.hits.len(), 1, "{found:#?}");
    assert_eq!(files(), before, "the index was deleted and rebuilt");
    drop(merge);
    let found = search(&ws, "rota", &opts, &now).unwrap();
    assert_eq!(found.hits.len(), 2, "{found:#?}");
}

// See: issue 20
/// The binary starts the merge tantivy's policy asks for in a process of its own: the
/// segments are merged soon after the writes, none of them waiting for it, and nothing is lost.
#[test]
fn issue_20_the_binary_merges_segments_in_the_background() {
    let env = TestEnv::initialized();
    for i in 0..10 {
        // A day each, so every write leaves one more segment (see above).
        env.set_now(&format!("2026-12-{:02}T10:00:00Z", i + 2));
        env.mutate(["remember", &format!("Merge probe {i}: the rota is posted on Fridays")]);
        // The write's background update done (a search waits for the index lock), so that the
        // next write is not queued into the same update and each leaves its own segment.
        env.run(["search", "rota"]).success();
    }
    let root = env.root.clone();
    let merged =
        wait_until(Duration::from_secs(60), || segments(&root) < 8 && !merge_running(&root));
    assert!(merged, "still {} segments after 60 s", segments(&root));
    // Merged by `cogmem merge-index`, which leaves its lock file behind.
    assert!(root.join(".cogmem/index-merge.lock").exists(), "no background merge ran");
    let out = env.run(["search", "rota", "--limit", "50"]).success();
    for i in 0..10 {
        assert!(out.stdout.contains(&format!("Merge probe {i}:")), "{out}");
    }
    env.assert_clean_tree();
}

/// Whether a background merge holds the merge lock.
fn merge_running(root: &Path) -> bool {
    let Ok(file) = std::fs::File::open(root.join(".cogmem/index-merge.lock")) else {
        return false;
    };
    match file.try_lock() {
        Ok(()) => false,
        Err(_) => true,
    }
}

// See: issue 20
/// A repack rolls existing packs up (`--geometric=2`) instead of adding one more: the number
/// of packs, which every object lookup of every write searches, stays near the logarithm of
/// the history. `repack -d` alone left all six packs in place.
#[test]
fn issue_20_repack_rolls_packs_up() {
    let env = TestEnv::initialized();
    for i in 0..6 {
        env.write(&format!("notes/pack-{i}.md"), &format!("pack {i}\n"));
        env.git_commit_all(&format!("pack {i}"));
        let out = env.git_command(&["repack", "-d", "-q"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert!(env.packs() >= 6, "{} packs", env.packs());
    assert!(cogmem::git::repack(&env.root.join(".git")));
    assert!(env.packs() <= 2, "{} packs after a repack", env.packs());
    let fsck = env.git_command(&["fsck", "--full", "--strict"]).output().unwrap();
    assert!(fsck.status.success(), "{}", String::from_utf8_lossy(&fsck.stderr));
}

/// Runs `scripts/gen-history` on the workspace.
fn gen_history(env: &TestEnv, commits: usize, seed: u64) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen-history");
    let out = Command::new("python3")
        .arg(script)
        .arg(&env.root)
        .args(["--commits", &commits.to_string(), "--seed", &seed.to_string()])
        .args(["--cogmem", env!("CARGO_BIN_EXE_cogmem")])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", &env.home)
        .output()
        .expect("python3 runs scripts/gen-history");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    stats["cogmem_now"].as_str().unwrap().to_owned()
}

fn workspace_with_memories() -> TestEnv {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Ada prefers tea in the morning"]);
    env.mutate(["remember", "Ada works on the billing service", "--entity", "person--ada"]);
    env.mutate(["remember", "Bruno reviews the deploy plan", "--entity", "person--bruno"]);
    env
}

// See: issue 20
/// `scripts/gen-history` adds the commits asked for, in cogmem's style, and leaves a
/// workspace whose working tree matches HEAD and that `verify` finds nothing wrong with; the
/// same seed gives the same history.
#[test]
fn issue_20_gen_history_leaves_a_workspace_verify_accepts() {
    let env = workspace_with_memories();
    let before = env.commit_count();
    let now = gen_history(&env, 300, 7);
    assert_eq!(env.commit_count(), before + 300);
    env.assert_clean_tree();
    let subjects = env.git(&["log", "--format=%s%n%an", "-300"]);
    assert!(subjects.contains("[APPEND] memory/episodes/"), "{subjects}");
    assert!(subjects.contains("[EDIT] memory/graph/entities/person--"), "{subjects}");
    assert!(subjects.contains("[DECAY] memory/meta/decay-scores.json"), "{subjects}");
    assert!(subjects.contains("system:decay"), "{subjects}");
    let reflog = env.git(&["reflog", "--format=%H"]);
    assert!(reflog.lines().count() >= 300, "{} reflog entries", reflog.lines().count());
    env.set_now(&now);
    env.run(["reindex"]).success();
    env.run(["verify"]).success();
    env.mutate(["remember", "After the history: the rota changes on Tuesdays"]);

    let again = workspace_with_memories();
    gen_history(&again, 300, 7);
    assert_eq!(again.head(), env.git(&["rev-parse", "HEAD~1"]).trim());
}

// See: issue 20
/// A write updates the git index by patching the entries it committed (the rest of the file is
/// copied, not re-read by libgit2): git must see exactly what it saw before. The committed
/// files' stat data is git's own (`git diff-files`, which compares stat data without
/// refreshing, lists nothing), the index's tree is HEAD's, a user's staged file stays staged,
/// and an index git keeps in version 4 (left to libgit2) still works and stays version 4.
#[test]
fn issue_20_a_write_leaves_the_git_index_as_git_would() {
    let env = TestEnv::initialized();
    env.write("notes.txt", "mine\n");
    env.git(&["add", "notes.txt"]);
    for (i, entity) in ["", "concept--deploys", "concept--deploys"].iter().enumerate() {
        let text = format!("The deploy window moved to day {i}");
        let mut args = vec!["remember", text.as_str()];
        if !entity.is_empty() {
            args.extend(["--entity", entity]);
        }
        env.run(args).success();
        assert_eq!(env.git(&["diff-files", "--name-only"]), "", "after write {i}");
        assert_eq!(env.git_status(), "A  notes.txt\n", "after write {i}");
        assert_eq!(env.git(&["diff", "--cached", "--name-only"]), "notes.txt\n");
    }
    env.git(&["reset", "-q", "notes.txt"]);
    assert_eq!(env.git(&["write-tree"]), env.git(&["rev-parse", "HEAD^{tree}"]));
    // Version 4, which the patch leaves to libgit2.
    env.git(&["update-index", "--index-version", "4"]);
    env.run(["remember", "The deploy window moved again", "--entity", "concept--deploys"])
        .success();
    assert_eq!(env.git(&["diff-files", "--name-only"]), "");
    assert_eq!(env.git_status(), "?? notes.txt\n");
    assert_eq!(env.git(&["update-index", "--show-index-version"]).trim(), "4");
    // Back to version 2: the next write patches it again, and a hand edit to a file it does
    // not touch is still seen by git and by cogmem.
    env.git(&["update-index", "--index-version", "2"]);
    env.run(["remember", "And once more, on the last day"]).success();
    let core = env.read("MEMORY.md") + "- added by hand\n";
    env.write("MEMORY.md", &core);
    assert_eq!(env.git_status(), " M MEMORY.md\n?? notes.txt\n");
    let out = env.run(["remember", "x", "--store", "core"]).output().code(4);
    assert!(out.stderr.contains("uncommitted edits in the way: MEMORY.md"), "{}", out.stderr);
}

// See: issue 20
/// A write stores its files' bytes as they are (without libgit2's attribute lookup, which read
/// the whole git index) only where no filter applies; where `.gitattributes` asks for one
/// (`ident` collapses `$Id: …$` as git does on add), the stored blob is the filtered one, and
/// git sees a clean tree either way.
#[test]
fn issue_20_a_write_stores_what_git_add_would_store() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "plain note with $Id: kept $ as said"]);
    env.assert_clean_tree();
    let day = env.git(&["log", "-1", "--name-only", "--format="]);
    let day = day.lines().find(|l| l.starts_with("memory/episodes/")).unwrap().to_owned();
    assert!(env.git(&["show", &format!("HEAD:{day}")]).contains("$Id: kept $"));

    let attrs = env.read(".gitattributes") + "memory/episodes/*.md ident\n";
    env.write(".gitattributes", &attrs);
    env.git_commit_all("ident on episodes");
    // The next day's file (libgit2's `ident` collapses one `$Id…$` per file, git every one).
    env.set_now("2026-12-02T09:00:00Z");
    // Not `mutate`: this write also adopts the outside commit above.
    env.run(["remember", "second note with $Id: collapsed $ in it"]).success();
    env.assert_clean_tree();
    let stored = env.git(&["show", "HEAD:memory/episodes/2026-12-02.md"]);
    assert!(stored.contains("with $Id$ in it"), "{stored}");
    assert_eq!(env.git(&["diff", "HEAD", "--stat"]), "");
}

// See: issue 20
/// A command that writes hands the index update to a process of its own, holding the index
/// lock, and returns: with no other command run, the index catches up with the change; a
/// search right after the write waits for the lock and finds the new memory; `verify` finds
/// the index up to date.
#[cfg(feature = "timings")]
#[test]
fn issue_20_a_write_hands_the_index_update_to_a_process_of_its_own() {
    let env = TestEnv::initialized();
    let out = env
        .run(["remember", "the heron nests by the east pond"])
        .env("COGMEM_TIMINGS", "1")
        .success();
    assert!(out.stderr.contains("index: update handed over"), "{}", out.stderr);
    assert!(!out.stderr.contains("index: documents added"), "not indexed in the command");
    let ws = cogmem::Workspace::open(&env.root).unwrap();
    let fresh = || cogmem::index::state(&ws) == cogmem::index::IndexState::Fresh;
    assert!(wait_until(Duration::from_secs(30), fresh), "the index caught up on its own");

    // Back to back: each search sees the write before it.
    for n in 0..3 {
        let text = format!("egret sighting number {n} at the reservoir");
        env.run(["remember", &text]).success();
        let hits = env.run(["search", "--json", &format!("egret {n}")]).success();
        assert!(hits.stdout.contains(&format!("egret sighting number {n}")), "{}", hits.stdout);
    }
    env.run(["verify"]).success();
}
