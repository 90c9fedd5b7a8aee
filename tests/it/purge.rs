//! `cogmem forget --purge ID`: the dry run lists the commits and files holding the text and
//! changes nothing; with `--yes` the memory leaves the files, the index and the graph, every
//! commit of the branch is re-created without its text, a backup ref keeps the old history, and
//! a PURGE audit line (without the text) lands in a final commit. After the backup ref is
//! deleted and git garbage-collects, no object in the repository holds the text.

use crate::common::TestEnv;

/// Every object of the repository, as raw bytes (loose and packed), read with git itself.
fn all_objects(env: &TestEnv) -> Vec<(String, Vec<u8>)> {
    let list =
        env.git(&["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"]);
    let mut out = Vec::new();
    for line in list.lines() {
        let Some((id, kind)) = line.split_once(' ') else { continue };
        let bytes = std::process::Command::new("git")
            .args(["cat-file", kind, id])
            .current_dir(&env.root)
            .output()
            .unwrap()
            .stdout;
        out.push((id.to_owned(), bytes));
    }
    out
}

fn holding(env: &TestEnv, needle: &str) -> Vec<String> {
    all_objects(env)
        .into_iter()
        .filter(|(_, b)| String::from_utf8_lossy(b).contains(needle))
        .map(|(id, _)| id)
        .collect()
}

fn core_id(env: &TestEnv, text: &str) -> String {
    // The library, not the CLI: test output normalises 8-hex-digit ids away.
    let units = cogmem::store::units::list(&env.root);
    units
        .units
        .iter()
        .find(|u| u.id.starts_with("core:") && u.text.contains(text))
        .map(|u| u.id.clone())
        .unwrap_or_else(|| panic!("no core memory holds {text:?}"))
}

#[test]
fn purge_rewrites_history_so_no_object_holds_the_text() {
    let env = TestEnv::initialized();
    let secret = "gate code is 4711-purple-otter";
    let text = format!("The office {secret} for the back door");
    env.mutate(["remember", "Alice prefers green tea over coffee"]);
    env.mutate(["remember", "--store", "core", "--store", "episodic", &text]);
    env.mutate(["remember", "Bob moved to Lisbon in 2026"]);
    env.mutate(["remember", "--store", "core", "We chose Postgres for Atlas"]);
    let id = core_id(&env, "purple-otter");
    assert!(!holding(&env, secret).is_empty(), "the text is in history before the purge");
    let head = env.head();
    let commits = env.commit_count();

    // Dry run: lists, changes nothing.
    let before = env.snapshot();
    let out = env.run(["forget", "--purge", &id, "--dry-run"]).success();
    assert!(out.stdout.contains("MEMORY.md"), "{out}");
    assert!(out.stdout.contains("nothing rewritten"), "{out}");
    let json = env.run(["forget", "--purge", &id, "--dry-run", "--json"]).success();
    let plan: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert!(plan["commits"].as_array().unwrap().len() >= 2, "{plan}");
    assert_eq!(env.head(), head);
    assert_eq!(env.snapshot(), before);
    // Without --yes it is a dry run too.
    env.run(["forget", "--purge", &id]).success();
    assert_eq!(env.head(), head);

    // The purge.
    let out = env.run(["forget", "--purge", &id, "--yes"]).success();
    assert!(out.stdout.contains("refs/cogmem/pre-purge/"), "{out}");
    assert!(out.stdout.contains("git reflog expire --expire=now --all"), "{out}");
    env.assert_clean_tree();
    // Same number of commits plus the forget and the PURGE commits; authors and times kept.
    assert_eq!(env.commit_count(), commits + 2);
    let log = env.git(&["log", "--format=%an|%at|%s"]);
    assert!(log.lines().next().unwrap().contains("[PURGE]"), "{log}");
    assert!(!log.contains(secret), "{log}");
    let audit = env.read("memory/meta/audit.log");
    assert!(audit.contains("| PURGE |"), "{audit}");
    assert!(!audit.contains(secret), "{audit}");
    // Gone from files, index and search; the other memories stay.
    for (path, bytes) in env.snapshot() {
        assert!(!String::from_utf8_lossy(&bytes).contains(secret), "{path} holds it");
    }
    let out = env.run(["search", "purple otter", "--all"]).output();
    assert!(!out.stdout.contains("otter"), "{out}");
    assert!(env.read("MEMORY.md").contains("We chose Postgres for Atlas"));
    assert!(env.run(["search", "Lisbon"]).success().stdout.contains("Bob moved to Lisbon"));
    let fsck = std::process::Command::new("git")
        .args(["fsck", "--no-progress"])
        .current_dir(&env.root)
        .output()
        .unwrap();
    assert!(fsck.status.success(), "{}", String::from_utf8_lossy(&fsck.stderr));

    // Until the backup ref goes, the old objects are still there; after gc, none holds it.
    let backups = env.git(&["for-each-ref", "--format=%(refname)", "refs/cogmem/pre-purge/"]);
    let backup = backups.trim();
    assert!(!backup.is_empty());
    // The backup keeps the old history: the tip before the purge and the forget's commit.
    env.git(&["merge-base", "--is-ancestor", &head, backup]);
    env.git(&["update-ref", "-d", backup]);
    env.git(&["reflog", "expire", "--expire=now", "--all"]);
    env.git(&["gc", "--prune=now", "--quiet"]);
    let left = holding(&env, secret);
    assert!(left.is_empty(), "objects still holding the text: {left:?}");
    assert!(holding(&env, "4711").is_empty());
    // The repository still works.
    env.mutate(["remember", "After the purge, life goes on"]);
}

#[test]
fn purge_refuses_a_dirty_tree_and_unknown_ids() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--store", "core", "Locker combination 8812-blue-heron"]);
    let id = core_id(&env, "heron");
    env.write("notes.txt", "hand edit\n");
    let head = env.head();
    let out = env.run(["forget", "--purge", &id, "--yes"]).output().code(4);
    assert!(out.stderr.contains("uncommitted changes"), "{out}");
    // Stashing is the obvious way to clean the tree, and a stash keeps the old history.
    assert!(out.stderr.contains("`git stash clear`"), "{out}");
    assert_eq!(env.head(), head);
    std::fs::remove_file(env.path("notes.txt")).unwrap();
    env.run(["forget", "--purge", "core:critical-facts:00000000", "--yes"]).output().code(1);
    assert_eq!(env.head(), head);
}

/// The id of the one unit whose text holds `needle` (any store), read with the library.
fn unit_id(env: &TestEnv, prefix: &str, needle: &str) -> String {
    let units = cogmem::store::units::list(&env.root);
    units
        .units
        .iter()
        .find(|u| u.id.starts_with(prefix) && u.text.contains(needle))
        .map(|u| u.id.clone())
        .unwrap_or_else(|| panic!("no {prefix} memory holds {needle:?}"))
}

/// Deletes every backup ref, expires the reflogs and collects garbage: what the purge report
/// tells the user to run.
fn erase_backups(env: &TestEnv) {
    let refs = env.git(&["for-each-ref", "--format=%(refname)", "refs/cogmem/"]);
    for r in refs.lines().filter(|r| !r.is_empty()) {
        env.git(&["update-ref", "-d", r]);
    }
    env.git(&["reflog", "expire", "--expire=now", "--all"]);
    env.git(&["gc", "--prune=now", "--quiet"]);
}

fn assert_erased(env: &TestEnv, needles: &[&str]) {
    erase_backups(env);
    for n in needles {
        let left = holding(env, n);
        assert!(left.is_empty(), "objects still holding {n:?}: {left:?}");
        let log = env.git(&["log", "-p", "--all", "--name-only"]);
        assert!(!log.contains(n), "git log -p --all still shows {n:?}");
    }
    let fsck = env.git_command(&["fsck", "--no-progress"]).output().unwrap();
    assert!(fsck.status.success(), "{}", String::from_utf8_lossy(&fsck.stderr));
}

// See: issue 16
#[test]
fn issue_16_purge_erases_text_with_line_breaks_and_tabs() {
    let env = TestEnv::initialized();
    let text = "Notes from the locksmith visit\nthe middle line holds 7731-amber-falcon\n\tand a tabbed third line about keys";
    env.mutate(["remember", "--store", "episodic", text]);
    env.mutate(["remember", "Bob moved to Lisbon in 2026"]);
    let id = unit_id(&env, "episode:", "amber-falcon");
    let out = env.run(["forget", "--purge", &id, "--dry-run"]).success();
    assert!(out.stdout.contains("memory/episodes/"), "the dry run lists the episode: {out}");
    env.run(["search", "amber falcon"]).success();
    env.run(["forget", "--purge", &id, "--yes"]).success();
    env.assert_clean_tree();
    // Nor does any derived file (the search index is rebuilt, the rest scrubbed).
    let mut stack = vec![env.path(".cogmem")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                let bytes = std::fs::read(e.path()).unwrap();
                let text = String::from_utf8_lossy(&bytes);
                assert!(!text.contains("amber-falcon"), "{} holds it", e.path().display());
            }
        }
    }
    assert_erased(&env, &["7731-amber-falcon", "tabbed third line", "locksmith visit"]);
    assert!(env.run(["search", "Lisbon"]).success().stdout.contains("Bob moved to Lisbon"));
}

// See: issue 16
#[test]
fn issue_16_purge_erases_a_vault_title_from_names_headings_ids_and_subjects() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "--store",
        "vault",
        "--title",
        "Marigold Overpass Lease",
        "The lease for the marigold overpass runs to 2030",
    ]);
    env.mutate(["remember", "Bob moved to Lisbon in 2026"]);
    let id = unit_id(&env, "vault:", "2030");
    assert!(id.contains("marigold"), "{id}");
    let out = env.run(["forget", "--purge", &id, "--yes"]).success();
    assert!(!out.stdout.to_lowercase().contains("marigold"), "the report names no title: {out}");
    env.assert_clean_tree();
    let audit = env.read("memory/meta/audit.log");
    let purge_line = audit.lines().find(|l| l.contains("| PURGE |")).expect("a PURGE line");
    assert!(!purge_line.to_lowercase().contains("marigold"), "{purge_line}");
    assert_erased(&env, &["marigold", "Marigold", "overpass"]);
}

// See: issue 16
#[test]
fn issue_16_purge_erases_the_forms_cogmem_writes_and_every_copy() {
    let env = TestEnv::initialized();
    let text = "Door code | 5521-crimson-lynx | for the back gate of the yard";
    env.mutate(["remember", "--store", "core", "--store", "episodic", text]);
    env.mutate(["remember", "Bob moved to Lisbon in 2026"]);
    let id = core_id(&env, "crimson-lynx");
    env.run(["forget", "--purge", &id, "--yes"]).success();
    env.assert_clean_tree();
    let units = cogmem::store::units::list(&env.root);
    assert!(!units.units.iter().any(|u| u.text.contains("crimson")), "no copy is left as a memory");
    assert!(!units.units.iter().any(|u| u.text.contains("[purged]")), "no copy left as a husk");
    env.run(["verify"]).output().code(0);
    assert_erased(&env, &["5521-crimson-lynx", "crimson-lynx", "for the back gate"]);
}

// See: issue 16
#[test]
fn issue_16_a_memory_already_forgotten_or_deleted_can_be_purged() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--store", "core", "Locker combination 8812-blue-heron at the gym"]);
    env.mutate(["remember", "--store", "core", "Safe word is 6613-velvet-moose for the vault"]);
    env.mutate(["remember", "Bob moved to Lisbon in 2026"]);
    let deleted = core_id(&env, "blue-heron");
    let archived = core_id(&env, "velvet-moose");
    env.mutate(["forget", "--id", &deleted, "--permanent", "--yes"]);
    env.mutate(["forget", "--id", &archived, "--yes"]);
    // By id, from history.
    let out = env.run(["forget", "--purge", &deleted, "--dry-run"]).success();
    assert!(out.stdout.contains("MEMORY.md"), "{out}");
    env.run(["forget", "--purge", &deleted, "--yes"]).success();
    env.assert_clean_tree();
    env.run(["forget", "--purge", &archived, "--yes"]).success();
    env.assert_clean_tree();
    // By text, with a dry run listing every object.
    env.mutate(["remember", "Spare key hides under the 9034-granite-toad statue"]);
    env.mutate(["forget", "Spare key granite toad statue", "--yes"]);
    let out = env
        .run(["forget", "--purge-text", "Spare key hides under the 9034-granite-toad statue"])
        .success();
    assert!(out.stdout.contains("memory/episodes/"), "{out}");
    assert!(out.stdout.contains("nothing rewritten"), "{out}");
    let out = env
        .run([
            "forget",
            "--purge-text",
            "Spare key hides under the 9034-granite-toad statue",
            "--yes",
        ])
        .success();
    env.assert_clean_tree();
    // The erase commands cover the earlier purges' backups too: they hold this text as well.
    assert!(out.stdout.matches("git update-ref -d refs/cogmem/pre-purge/").count() >= 3, "{out}");
    assert_erased(&env, &["8812-blue-heron", "6613-velvet-moose", "9034-granite-toad"]);
    env.run(["verify"]).output().code(0);
}

// See: issue 16
#[test]
fn issue_16_purge_rewrites_every_local_branch_and_tag() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--store", "core", "Alarm code 3390-saffron-gecko for the shed"]);
    env.git(&["branch", "experiment"]);
    env.git(&["tag", "v1"]);
    env.git(&["tag", "-a", "v1-annotated", "-m", "release"]);
    env.mutate(["remember", "Bob moved to Lisbon in 2026"]);
    let id = core_id(&env, "saffron-gecko");
    let out = env.run(["forget", "--purge", &id, "--yes"]).success();
    assert!(out.stdout.contains("refs/heads/experiment"), "{out}");
    assert!(out.stdout.contains("refs/tags/v1"), "{out}");
    assert!(out.stdout.contains("git update-ref -d refs/cogmem/pre-purge/"), "{out}");
    env.git(&["rev-parse", "experiment", "v1", "v1-annotated"]);
    assert_erased(&env, &["3390-saffron-gecko"]);
}

// See: issue 16
#[test]
fn issue_16_purging_an_entity_removes_the_inverse_relations() {
    let env = TestEnv::initialized();
    // A relation of the vocabulary: an unknown one is refused (issue 18).
    env.mutate([
        "remember",
        "Bob is sure of Ann",
        "--relation",
        "person--bob|confident-about|person--ann",
    ]);
    env.mutate([
        "remember",
        "Ann's badge number is 4471-ochre-badger",
        "--entity",
        "person--ann",
        "--store",
        "semantic",
    ]);
    env.run(["verify"]).output().code(0);
    env.run(["forget", "--purge", "entity:person--ann", "--yes"]).success();
    env.assert_clean_tree();
    let out = env.run(["verify"]).output();
    assert_eq!(out.code, 0, "{out}");
    assert!(!env.read("memory/graph/entities/person--bob.md").contains("person--ann"));
}

/// Purging the workspace's only entity: the lines every entity file and the workspace's
/// templates hold (`## Relations`, `## Open Questions`) are no part of it, so IDENTITY.md,
/// evolution.md and `relations.md` stay as they were; and the entity's label, which the graph
/// registry's rows hold apart from its id, leaves history too.
#[test]
fn purging_the_only_entity_leaves_the_built_in_files_and_erases_its_label() {
    let env = TestEnv::initialized();
    let before: Vec<(&str, String)> =
        ["IDENTITY.md", "memory/meta/evolution.md", "memory/graph/relations.md"]
            .into_iter()
            .map(|f| (f, env.read(f)))
            .collect();
    env.mutate([
        "remember",
        "--entity",
        "person--quillon",
        "Quillon mobile number 555-0177-2290 private",
    ]);
    assert!(env.read("memory/graph/index.md").contains("| person | quillon |"));
    env.run(["forget", "--purge", "entity:person--quillon", "--yes"]).success();
    env.assert_clean_tree();
    for (file, text) in &before {
        assert_eq!(&env.read(file), text, "{file} changed");
    }
    env.run(["verify"]).output().code(0);
    env.mutate(["remember", "--relation", "person--ann|mentors|person--bob", "Ann mentors Bob"]);
    assert_erased(&env, &["555-0177-2290", "quillon"]);
}

/// Remembers a pager code for `person--quillon`, moves the entity's file out of the workspace
/// and commits a symbolic link to it in its place; returns the file outside.
fn link_quillon_out(env: &TestEnv) -> std::path::PathBuf {
    env.mutate(["remember", "--entity", "person--quillon", "Quillon's pager code is 7731-azure"]);
    let file = env.path("memory/graph/entities/person--quillon.md");
    let outside = env.home.join("quillon.md");
    std::fs::rename(&file, &outside).unwrap();
    std::os::unix::fs::symlink(&outside, &file).unwrap();
    env.git_commit_all("link");
    // The plain-git commit is settled (adopted) first, by any command that writes.
    env.run(["sync"]).success();
    outside
}

/// A memory whose file is a symbolic link is not purged: the text in the file the link leads
/// to is out of reach, and the purge said it was done (renaming the link, leaving it dangling).
#[test]
fn a_memory_whose_file_is_a_link_is_not_purged() {
    let env = TestEnv::initialized();
    let outside = link_quillon_out(&env);
    let file = env.path("memory/graph/entities/person--quillon.md");
    let head = env.head();
    let out = env.run(["forget", "--purge", "entity:person--quillon", "--yes"]).output();
    assert_ne!(out.code, 0, "{out}");
    assert!(out.stderr.contains("symbolic link"), "{out}");
    assert_eq!(env.head(), head, "nothing rewritten");
    assert!(std::fs::symlink_metadata(&file).unwrap().file_type().is_symlink());
    assert!(std::fs::read_to_string(&outside).unwrap().contains("7731-azure"));
}

/// Two purges in one second keep their old histories under two stamps: the second found the
/// first one's backup refs under its stamp, kept none of its own and named the first's.
#[test]
fn two_purges_in_one_second_keep_both_old_histories() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "The first secret plan is tangerine"]);
    env.mutate(["remember", "The second secret plan is marigold"]);
    let now = env.peek_now();
    let mut kept: Vec<(String, String)> = Vec::new(); // (backup ref, the commit it keeps)
    for (text, word) in [
        ("The first secret plan is tangerine", "tangerine"),
        ("The second secret plan is marigold", "marigold"),
    ] {
        let out = env
            .run(["forget", "--purge-text", text, "--yes", "--json"])
            .env("COGMEM_NOW", &now)
            .success();
        let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let backup =
            report["backup_refs"][0].as_str().unwrap_or_else(|| panic!("{out}")).to_owned();
        let tip = env.git(&["rev-parse", &backup]).trim().to_owned();
        // The backup keeps the history this purge rewrote: the one that still held its text.
        assert!(env.git(&["log", "-p", &tip]).contains(word), "{backup} lacks the {word} history");
        kept.push((backup, tip));
    }
    assert_ne!(kept[0].0, kept[1].0, "{kept:?}");
    assert_eq!(env.git(&["rev-parse", &kept[0].0]).trim(), kept[0].1, "the first backup moved");
}

// See: issue 16
#[test]
fn issue_16_the_purge_leaves_a_tombstone_without_the_text() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--store", "core", "Garage code 7120-indigo-ferret at home"]);
    let id = core_id(&env, "indigo-ferret");
    env.run(["forget", "--purge", &id, "--yes"]).success();
    let tomb = env.read("memory/meta/purged");
    assert!(tomb.lines().any(|l| !l.starts_with('#') && !l.trim().is_empty()), "{tomb}");
    assert!(!tomb.contains("indigo") && !tomb.contains("7120") && !tomb.contains(&id), "{tomb}");
    assert!(env.git(&["ls-files"]).contains("memory/meta/purged"));
}

// See: issue 16
#[test]
fn issue_16_two_branches_tombstones_merge_by_union_in_plain_git() {
    let env = TestEnv::initialized();
    env.git(&["branch", "laptop"]);
    env.mutate(["remember", "--store", "core", "Alarm code 3390-saffron-gecko for the shed"]);
    let id = core_id(&env, "saffron-gecko");
    env.run(["forget", "--purge", &id, "--yes"]).success();
    env.git(&["checkout", "-q", "laptop"]);
    env.mutate(["remember", "--store", "core", "Locker code 8841-teal-heron at the gym"]);
    let id = core_id(&env, "teal-heron");
    env.run(["forget", "--purge", &id, "--yes"]).success();
    // Both branches made the tombstone file; a plain git merge keeps both lines (the other
    // files both sides changed are `sync --remote`'s to combine).
    let out = env
        .git_command(&["merge-tree", "--write-tree", "--name-only", "main", "laptop"])
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = listing.lines();
    let tree = lines.next().unwrap().to_owned();
    let conflicted: Vec<&str> = lines.take_while(|l| !l.is_empty()).collect();
    assert!(!conflicted.contains(&"memory/meta/purged"), "{listing}");
    let merged = env.git(&["cat-file", "-p", &format!("{tree}:memory/meta/purged")]);
    let ours = env.git(&["show", "main:memory/meta/purged"]);
    let theirs = env.git(&["show", "laptop:memory/meta/purged"]);
    for side in [&ours, &theirs] {
        let entry = side.lines().last().unwrap();
        assert_eq!(merged.matches(entry).count(), 1, "{entry} once in:\n{merged}");
    }
    assert_eq!(merged.lines().filter(|l| l.starts_with('#')).count(), 2, "{merged}");
}

/// Runs the erase commands a purge's `--json` report lists, as the user would.
fn run_erase_commands(env: &TestEnv, report: &serde_json::Value) {
    for c in report["erase_commands"].as_array().unwrap() {
        let words: Vec<&str> = c.as_str().unwrap().split(' ').collect();
        assert_eq!(words[0], "git", "{c}");
        env.git(&words[1..]);
    }
}

// See: issue 16
#[test]
fn issue_16_purge_deletes_the_remote_tracking_refs_that_hold_the_text() {
    let env = TestEnv::initialized();
    let remote = env.home.join("remote.git");
    env.git(&["init", "-q", "--bare", "-b", "main", remote.to_str().unwrap()]);
    env.git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    env.run(["sync", "--remote", "origin"]).success();
    // A tracking ref from before the text: it stays.
    env.git(&["update-ref", "refs/remotes/origin/before", "HEAD"]);
    env.mutate(["remember", "--store", "core", "Safe code 5521-amber-walrus in the attic"]);
    env.run(["sync", "--remote", "origin"]).success();
    env.git(&["symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main"]);
    let id = core_id(&env, "amber-walrus");
    let dry = env.run(["forget", "--purge", &id]).success();
    assert!(
        dry.stdout.contains("remote-tracking refs to be deleted (")
            && dry.stdout.contains("refs/remotes/origin/main"),
        "{dry}"
    );
    env.git(&["rev-parse", "refs/remotes/origin/main"]);
    let out = env.run(["--json", "forget", "--purge", &id, "--yes"]).success();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["dropped_refs"], serde_json::json!(["refs/remotes/origin/main"]), "{out}");
    let other = report["other_refs"].as_array().unwrap();
    assert!(!other.iter().any(|r| r == "refs/remotes/origin/main"), "{report:#}");
    let left = env.git(&["for-each-ref", "--format=%(refname)", "refs/remotes"]);
    assert_eq!(left.trim(), "refs/remotes/origin/before", "origin/HEAD went with origin/main");
    // The commands the report prints are enough: no local object holds the text.
    run_erase_commands(&env, &report);
    assert!(holding(&env, "5521-amber-walrus").is_empty());
    // The remote still holds it until the rewritten history replaces it.
    let out = env.run(["sync", "--remote", "origin", "--force-rewritten"]).success();
    assert!(out.stderr.contains("origin"), "{out}");
    assert_eq!(
        env.git(&["rev-parse", "refs/remotes/origin/main"]),
        env.git(&["rev-parse", "HEAD"])
    );
    env.assert_clean_tree();
}

// Kills a change with COGMEM_CRASH_AT: needs the `crash-points` feature.
// See: issue 16
#[cfg(feature = "crash-points")]
#[test]
fn issue_16_purge_rewrites_the_recovery_refs_and_copies() {
    let env = TestEnv::initialized();
    let text = "Safe code 5521-amber-walrus in the attic";
    env.mutate(["remember", "--store", "core", text]);
    // A killed change and the command after it: a recovery ref and copies that hold the text.
    let killed = env
        .run(["remember", "--store", "core", "Bob moved to Lisbon"])
        .env("COGMEM_CRASH_AT", "before-commit")
        .output();
    assert_ne!(killed.code, 0, "{killed}");
    env.run(["status"]).success();
    let refs = || env.git(&["for-each-ref", "--format=%(refname)", "refs/cogmem/recovered"]);
    let recovered = refs().trim().to_owned();
    assert!(recovered.starts_with("refs/cogmem/recovered/journal-"), "{recovered}");
    assert!(env.git(&["show", &format!("{recovered}:MEMORY.md")]).contains("amber-walrus"));
    let id = core_id(&env, "amber-walrus");
    let out = env.run(["--json", "forget", "--purge", &id, "--yes"]).success();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(report["refs"].as_array().unwrap().iter().any(|r| r == recovered.as_str()), "{out}");
    assert_eq!(refs().trim(), recovered, "kept, rewritten");
    let kept = env.git(&["show", &format!("{recovered}:MEMORY.md")]);
    assert!(!kept.contains("amber-walrus") && kept.contains("Lisbon"), "{kept}");
    let copies = walkdir::WalkDir::new(env.path(".cogmem/recovered"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect::<Vec<_>>();
    assert!(!copies.is_empty());
    assert!(copies.iter().all(|c| !c.contains("amber-walrus")), "{copies:?}");
    run_erase_commands(&env, &report);
    assert!(holding(&env, "5521-amber-walrus").is_empty());
}

// See: issue 16
#[test]
fn issue_16_a_core_bullet_that_held_part_of_the_text_keeps_its_decay_entry() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "--store",
        "core",
        "The shed alarm code is 3390-saffron-gecko, ask Bob",
    ]);
    let old = core_id(&env, "saffron-gecko");
    env.mutate(["pin", &old]);
    env.run(["forget", "--purge-text", "3390-saffron-gecko", "--yes"]).success();
    assert!(env.read("MEMORY.md").contains("- The shed alarm code is [purged], ask Bob"));
    let new = core_id(&env, "shed alarm");
    assert_ne!(new, old, "the id is a hash of the bullet's text");
    let decay: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    assert!(decay["entries"].get(&old).is_none(), "{decay:#}");
    assert_eq!(
        decay["entries"][&new]["pinned"], true,
        "the entry moved with its fields: {decay:#}"
    );
    env.run(["verify"]).success();
    env.assert_clean_tree();
}

/// A fact `hear` wrote to every entity the message names is one memory's text in two files:
/// purging one of the entities cuts the copy the other holds (its bullet, and the tag naming the
/// purged entity) from the files, history, subjects and the audit log; the other entity stays,
/// with its own facts, and the dry run lists the copy before anything is cut.
#[test]
fn purging_an_entity_cuts_the_copies_other_entities_hold() {
    let env = TestEnv::initialized();
    env.mutate([
        "hear",
        "remember that Quentin Doeberg was diagnosed with diabetes at Lakeside Clinic",
    ]);
    let clinic = "memory/graph/entities/organization--lakeside-clinic.md";
    assert!(env.read(clinic).contains("diabetes"), "hear wrote the fact to both entities");
    env.mutate([
        "remember",
        "--entity",
        "organization--lakeside-clinic",
        "Lakeside Clinic opens at eight every morning",
    ]);
    let dry = env.run(["forget", "--purge", "entity:person--quentin-doeberg"]).success();
    assert!(dry.stdout.contains("entity:organization--lakeside-clinic"), "{dry}");
    let json = env.run(["--json", "forget", "--purge", "entity:person--quentin-doeberg"]).success();
    let plan: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert!(plan["copies"].as_array().unwrap().iter().any(|c| c["path"] == clinic), "{plan:#}");
    env.run(["forget", "--purge", "entity:person--quentin-doeberg", "--yes"]).success();
    env.assert_clean_tree();
    let left = env.read(clinic);
    assert!(left.contains("opens at eight"), "{left}");
    assert!(!left.contains("[purged]"), "no husk of the copy is left: {left}");
    env.run(["verify"]).output().code(0);
    assert_erased(&env, &["diabetes", "doeberg", "Doeberg"]);
}

/// Two people who hold the same fact line hold it each as their own: purging one keeps the
/// other's (in its file and in history), and the dry run does not list it as a copy. A copy
/// that names the purged one still goes, and a section the cut leaves empty reads as a fresh
/// one, without a blank line left over.
#[test]
fn purging_an_entity_keeps_the_same_fact_another_entity_holds_as_its_own() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--entity", "person--bob-stone", "Likes hiking in the Alps"]);
    env.mutate(["remember", "--entity", "person--quentin-doeberg", "Likes hiking in the Alps"]);
    env.mutate(["hear", "remember that Quentin Doeberg and Dana Whitfield share a locker"]);
    let bob = "memory/graph/entities/person--bob-stone.md";
    let dana = "memory/graph/entities/person--dana-whitfield.md";
    assert!(env.read(dana).contains("share a locker"), "hear wrote the fact to both");
    let json = env.run(["--json", "forget", "--purge", "entity:person--quentin-doeberg"]).success();
    let plan: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let copies: Vec<&str> =
        plan["copies"].as_array().unwrap().iter().filter_map(|c| c["path"].as_str()).collect();
    assert_eq!(copies, [dana], "{plan:#}");
    env.run(["forget", "--purge", "entity:person--quentin-doeberg", "--yes"]).success();
    env.assert_clean_tree();
    let kept = env.read(bob);
    assert!(kept.contains("- Likes hiking in the Alps\n"), "{kept}");
    assert!(!kept.contains("[purged]"), "{kept}");
    let log = env.git(&["log", "-p", "--", bob]);
    assert!(!log.contains("[purged]"), "bob's history is his own: {log}");
    let left = env.read(dana);
    assert!(!left.contains("locker"), "{left}");
    assert!(left.contains("## Facts\n\n## Timeline"), "no blank line left over: {left}");
    env.run(["verify"]).output().code(0);
    assert_erased(&env, &["doeberg", "Doeberg", "share a locker"]);
    // The commit subject that named the purged file does not keep its fact either; bob's does.
    let subjects = env.git(&["log", "--all", "--format=%s"]);
    let hiking: Vec<&str> = subjects.lines().filter(|s| s.contains("hiking")).collect();
    assert_eq!(
        hiking,
        ["[CREATE] memory/graph/entities/person--bob-stone.md +2 — Likes hiking in the Alps"]
    );
    // Bob's fact is no purged text: remembering it again for someone else is no trouble.
    env.mutate(["remember", "--entity", "person--carla-mendes", "Likes hiking in the Alps"]);
}

/// A renamed entity lists its former id under `Aliases:`, and a merged one the id merged into
/// it: a purge cuts them as names too, from file names, subjects, the audit log and the decay
/// file, and the redirect the merge left goes with the entity.
#[test]
fn purging_a_renamed_or_merged_entity_cuts_its_former_ids() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "--entity",
        "person--johnathan-doeberg",
        "Johnathan lives at 12 Elm Street",
    ]);
    env.mutate(["graph", "rename", "person--johnathan-doeberg", "person--jd"]);
    env.mutate([
        "remember",
        "--entity",
        "person--johnny-quarrington",
        "Johnny plays the cello on Sundays",
    ]);
    env.mutate(["graph", "merge", "person--jd", "person--johnny-quarrington"]);
    env.run(["forget", "--purge", "entity:person--jd", "--yes"]).success();
    env.assert_clean_tree();
    env.run(["verify"]).output().code(0);
    assert_erased(&env, &["doeberg", "quarrington", "Elm Street", "cello"]);
}

/// A whole-file memory's purge covers every text its file ever held: a fact taken out by a hand
/// edit before the purge is erased from the old blobs, subjects and audit lines too.
#[test]
fn purging_a_note_erases_what_its_file_held_before() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--entity", "person--zed", "Zed home address is 44 Quarry Lane"]);
    env.mutate(["remember", "--entity", "person--zed", "Zed likes chess on Fridays"]);
    let file = "memory/graph/entities/person--zed.md";
    let text = env.read(file);
    let kept: String =
        text.lines().filter(|l| !l.contains("Quarry")).map(|l| format!("{l}\n")).collect();
    env.write(file, &kept);
    env.mutate(["sync"]);
    env.run(["forget", "--purge", "entity:person--zed", "--yes"]).success();
    env.assert_clean_tree();
    assert_erased(&env, &["Quarry", "chess on Fridays"]);
}

/// A stash made to clean the tree for the purge keeps the old history: the erase commands drop
/// it too, so running them leaves no object holding the text.
#[test]
fn the_erase_commands_drop_a_stash_that_keeps_the_old_history() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--store", "core", "Alarm code 3390-saffron-gecko for the shed"]);
    let id = core_id(&env, "saffron-gecko");
    env.write("notes.txt", "hand edit\n");
    env.git(&["stash", "--include-untracked", "-q"]);
    let out = env.run(["--json", "forget", "--purge", &id, "--yes"]).success();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(
        report["erase_commands"].as_array().unwrap().iter().any(|c| c == "git stash clear"),
        "{report:#}"
    );
    run_erase_commands(&env, &report);
    assert!(holding(&env, "3390-saffron-gecko").is_empty());
}

/// `--purge-text` refuses a text that a committed memory file holds through a symbolic link, as
/// `--purge ID` does: the file the link leads to is out of reach.
#[test]
fn purging_a_text_in_a_linked_file_is_refused() {
    let env = TestEnv::initialized();
    let outside = link_quillon_out(&env);
    let head = env.head();
    let out =
        env.run(["forget", "--purge-text", "Quillon's pager code is 7731-azure", "--yes"]).output();
    assert_eq!(out.code, 1, "{out}");
    assert!(out.stderr.contains("symbolic link"), "{out}");
    assert!(out.stderr.contains("person--quillon.md"), "{out}");
    assert_eq!(env.head(), head, "nothing rewritten");
    assert!(std::fs::read_to_string(&outside).unwrap().contains("7731-azure"));
}

/// A temporary file an atomic write left under `.cogmem/` when it was killed (the purge record's,
/// which holds the needles) is deleted by the purge, not only scrubbed.
#[test]
fn the_purge_deletes_a_leftover_temporary_file_holding_the_text() {
    let env = TestEnv::initialized();
    let text = "Garage code 7120-indigo-ferret at home";
    env.mutate(["remember", "--store", "core", text]);
    let id = core_id(&env, "indigo-ferret");
    let tmp = env.path(".cogmem/.cogmem-tmp-4242");
    std::fs::write(&tmp, format!("{{\"exact\": [\"{text}\"]}}")).unwrap();
    env.run(["forget", "--purge", &id, "--yes"]).success();
    assert!(!tmp.exists(), "the temporary file is still there");
}
