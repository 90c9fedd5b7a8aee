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
    assert_eq!(env.git(&["rev-parse", backup]).trim(), head);
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
    assert_eq!(env.head(), head);
    std::fs::remove_file(env.path("notes.txt")).unwrap();
    env.run(["forget", "--purge", "core:critical-facts:00000000", "--yes"]).output().code(1);
    assert_eq!(env.head(), head);
}
