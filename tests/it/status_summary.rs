//! `cogmem status` over its kept answer (`.cogmem/status/`, issue 20): whatever changed by hand
//! since the answer was kept, the next status says what a status without it would say.

use std::time::Duration;

use crate::common::{TestEnv, wait_until};

/// `status --json`, once the answer for the workspace as it is has been kept and reused: runs
/// status until a run leaves `summary.json` untouched (it was read, not computed).
fn kept_status(env: &TestEnv) -> serde_json::Value {
    let summary = env.path(".cogmem/status/summary.json");
    let stamp = || std::fs::metadata(&summary).ok().map(|m| (m.modified().ok(), m.len()));
    let mut out = None;
    let reused = wait_until(Duration::from_secs(20), || {
        let before = stamp();
        let s = env.run(["status", "--json"]).output();
        out = Some(s.stdout);
        before.is_some() && stamp() == before
    });
    assert!(reused, "status never reused its kept answer");
    serde_json::from_str(&out.expect("status ran")).expect("status --json prints JSON")
}

/// `status --json` computed from the files alone, without the kept answer or counts.
fn fresh_status(env: &TestEnv) -> serde_json::Value {
    std::fs::remove_dir_all(env.path(".cogmem/status")).expect("the kept answer exists");
    let out = env.run(["status", "--json"]).output();
    serde_json::from_str(&out.stdout).expect("status --json prints JSON")
}

/// The paths a `status --json` answer lists as uncommitted.
fn uncommitted_paths(status: &serde_json::Value) -> Vec<String> {
    let all = status["uncommitted"].as_array().expect("an uncommitted list");
    all.iter().map(|c| c["path"].as_str().expect("a path").to_owned()).collect()
}

/// A workspace with decay shards (past 1,000 entries), an entity and a vault note.
fn workspace() -> TestEnv {
    let env = TestEnv::initialized();
    env.import_messages(1_010);
    env.mutate(["remember", "Alice moved to Lisbon", "--entity", "person--alice"]);
    env.mutate(["remember", "the door code", "--store", "vault"]);
    // The index update each write hands over runs on after it: a status kept while it runs
    // says `stale`, and one computed after says `fresh`. Both are true; the test compares the
    // kept answer with a fresh one of the same workspace, so it waits.
    env.wait_for_index();
    env
}

#[test]
fn status_kept_answer_is_what_a_fresh_status_says() {
    let env = workspace();
    let kept = kept_status(&env);
    assert_eq!(kept["counts"]["episodes"], 1_010, "{kept:#}");
    // The episodes, Alice, Lisbon (named in Alice's fact: entity extraction) and the vault note.
    assert_eq!(kept["counts"]["decay_entries"], 1_013, "{kept:#}");
    assert_eq!(kept, fresh_status(&env));
}

#[test]
fn status_sees_a_same_size_hand_edit_after_its_answer_was_kept() {
    let env = workspace();
    let before = kept_status(&env);
    // Turn one entry's heading into plain text of the same length: the file keeps its size.
    let rel = "memory/episodes/2026-11-01.md";
    let text = env.read(rel);
    let edited = text.replacen("\n## 10:05 |", "\nxx 10:05 |", 1);
    assert_ne!(text, edited);
    assert_eq!(text.len(), edited.len());
    env.write(rel, &edited);
    let out = env.run(["status", "--json"]).output();
    let after: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(after["counts"]["episodes"], before["counts"]["episodes"].as_u64().unwrap() - 1);
    assert_eq!(after["uncommitted"][0]["path"], rel, "{after:#}");
    assert_eq!(after["uncommitted"][0]["state"], "modified");
    assert_eq!(after["index"], "stale");
    assert_eq!(kept_status(&env), fresh_status(&env));
}

#[test]
fn status_sees_a_deleted_file_and_a_decay_change_after_its_answer_was_kept() {
    let env = workspace();
    let before = kept_status(&env);
    std::fs::remove_file(env.path("memory/graph/entities/person--alice.md")).unwrap();
    let out = env.run(["status", "--json"]).output();
    let after: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(after["counts"]["entities"], 1, "Lisbon is left: {after:#}");
    assert_eq!(after["uncommitted"][0]["state"], "deleted");
    assert_eq!(kept_status(&env), fresh_status(&env));

    // Mark one entry of a shard dormant by hand.
    let shard = std::fs::read_dir(env.path("memory/meta/decay"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| std::fs::read_to_string(p).unwrap().contains("\"status\": \"active\""))
        .expect("a shard with an active entry");
    let text = std::fs::read_to_string(&shard).unwrap();
    std::fs::write(&shard, text.replacen("\"status\": \"active\"", "\"status\": \"dormant\"", 1))
        .unwrap();
    let out = env.run(["status", "--json"]).output();
    let now: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let bands = |v: &serde_json::Value, b: &str| v["counts"]["bands"][b].as_u64().unwrap();
    assert_eq!(bands(&now, "dormant"), bands(&before, "dormant") + 1, "{now:#}");
    assert_eq!(bands(&now, "active"), bands(&before, "active") - 1);
    assert_eq!(kept_status(&env), fresh_status(&env));
}

#[test]
fn status_reports_an_unreadable_file_every_time_its_answer_is_kept() {
    let env = workspace();
    std::fs::write(env.path("memory/episodes/2026-10-01.md"), b"# bad \xff\xfe\n").unwrap();
    let kept = kept_status(&env);
    assert_eq!(kept["skipped"][0]["path"], "memory/episodes/2026-10-01.md", "{kept:#}");
    let out = env.run(["status"]).output().code(3);
    assert!(out.stderr.contains("2026-10-01.md: not valid UTF-8"), "{out}");
    assert_eq!(kept, fresh_status(&env));
}

/// A file that is not UTF-8 is reported by every status, but read again only when it changes:
/// the per-file table keeps it as such (after a change elsewhere, a status reads the changed
/// file alone, and names the bad one with the same words); once fixed it is read and counted.
#[cfg(feature = "timings")]
#[test]
fn a_file_that_is_not_utf8_is_reported_by_every_status_but_read_once() {
    let env = workspace();
    let bad = "memory/episodes/2026-10-01.md";
    std::fs::write(env.path(bad), b"# bad \xff\xfe\n").unwrap();
    // (files read, the error reported for the bad file), each time after a change elsewhere.
    let mut n = 0;
    let mut next = || {
        n += 1;
        env.append("MEMORY.md", &format!("\n- a note by hand {n}\n"));
        let out = env.run(["status", "--json"]).env("COGMEM_TIMINGS", "1").output().code(3);
        let line = out.stderr.lines().find(|l| l.contains("status: files counted")).unwrap();
        let read: usize =
            line.split(" (").nth(1).and_then(|t| t.split(' ').next()).unwrap().parse().unwrap();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let skipped = v["skipped"].as_array().unwrap();
        let error = skipped.iter().find(|s| s["path"] == bad).expect("the bad file is named");
        (read, error["error"].as_str().unwrap().to_owned())
    };
    let (_, first) = next();
    assert!(first.contains("not valid UTF-8 at byte 6"), "{first}");
    // Once its stamp is settled, a status reads MEMORY.md alone and still names the bad file.
    let mut said = Vec::new();
    let once = wait_until(Duration::from_secs(20), || {
        let (read, error) = next();
        said.push(error);
        read == 1
    });
    assert!(once, "the bad file was read by every status");
    assert!(said.iter().all(|e| *e == first), "{said:?}");
    let (read, error) = next();
    assert_eq!((read, error), (1, first));
    // Fixed: read, counted, and named no more.
    env.write(bad, "# 2026-10-01\n\n## 09:00\nfixed by hand\n");
    let out = env.run(["status", "--json"]).output().success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["skipped"], serde_json::json!([]), "{out}");
    assert_eq!(uncommitted_paths(&v), ["MEMORY.md", bad], "{out}");
}

/// How many folders the next status lists (its timing line says), and its `--json` answer.
#[cfg(feature = "timings")]
fn listed_folders(env: &TestEnv) -> (usize, serde_json::Value) {
    let out = env.run(["status", "--json"]).env("COGMEM_TIMINGS", "1").output();
    let line = out.stderr.lines().find(|l| l.contains("status: files stat-ed")).expect("a mark");
    let n = line.split(", ").nth(1).and_then(|t| t.split(' ').next()).unwrap();
    (n.parse().unwrap(), serde_json::from_str(&out.stdout).unwrap())
}

#[cfg(feature = "timings")]
#[test]
fn status_lists_no_folder_once_kept_and_still_sees_files_added_renamed_and_removed_by_hand() {
    let env = workspace();
    let quiet = wait_until(Duration::from_secs(20), || listed_folders(&env).0 == 0);
    assert!(quiet, "status kept listing folders of an unchanged workspace");
    let before = kept_status(&env);
    // A new folder with a note in it, anywhere in the working tree: the parent's stamp changed.
    std::fs::create_dir_all(env.path("memory/vault/new-by-hand")).unwrap();
    env.write("memory/vault/new-by-hand/deep.md", "# deep\n");
    let (listed, after) = listed_folders(&env);
    assert!(listed >= 2, "{listed}");
    assert_eq!(uncommitted_paths(&after), ["memory/vault/new-by-hand/deep.md"], "{after:#}");
    // Once the listings are kept again, a note renamed in its folder, then removed.
    assert!(wait_until(Duration::from_secs(20), || listed_folders(&env).0 == 0));
    std::fs::rename(
        env.path("memory/vault/new-by-hand/deep.md"),
        env.path("memory/vault/new-by-hand/moved.md"),
    )
    .unwrap();
    assert_eq!(uncommitted_paths(&listed_folders(&env).1), ["memory/vault/new-by-hand/moved.md"]);
    assert!(wait_until(Duration::from_secs(20), || listed_folders(&env).0 == 0));
    std::fs::remove_dir_all(env.path("memory/vault/new-by-hand")).unwrap();
    let (_, after) = listed_folders(&env);
    assert!(uncommitted_paths(&after).is_empty(), "{after:#}");
    assert_eq!(after["counts"], before["counts"]);
    assert_eq!(kept_status(&env), fresh_status(&env));
}

#[cfg(feature = "timings")]
#[test]
fn status_lists_every_folder_again_when_its_kept_listings_are_damaged() {
    let env = workspace();
    assert!(wait_until(Duration::from_secs(20), || listed_folders(&env).0 == 0));
    let dirs = env.path(".cogmem/status/dirs");
    let bytes = std::fs::read(&dirs).unwrap();
    // A listing with one name less, as a torn or hand-made file could hold: not trusted.
    std::fs::write(&dirs, &bytes[..bytes.len() / 2]).unwrap();
    env.write("memory/vault/added.md", "# added\n");
    let (listed, after) = listed_folders(&env);
    assert!(listed > 2, "{listed}");
    assert_eq!(after["uncommitted"][0]["path"], "memory/vault/added.md", "{after:#}");
    assert_eq!(kept_status(&env), fresh_status(&env));
}

/// A working tree with more folders than the walk keeps open (64): the files of the others are
/// stat-ed too, so an edit in place in any of them makes the next status count again.
#[test]
fn status_sees_an_edit_in_any_of_many_folders_after_its_answer_was_kept() {
    let env = TestEnv::initialized();
    for i in 0..80 {
        env.write(&format!("notes/n{i:02}/a.md"), &format!("# note {i}\n"));
    }
    env.git_commit_all("eighty folders of notes");
    let before = kept_status(&env);
    assert_eq!(before["uncommitted"], serde_json::json!([]), "{before:#}");
    // Each folder in turn (which ones the walk keeps open depends on the listing order).
    for i in 0..80 {
        let rel = format!("notes/n{i:02}/a.md");
        env.append(&rel, "edited in place\n");
        let out = env.run(["status", "--json"]).output();
        let after: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(uncommitted_paths(&after), [rel.as_str()], "{after:#}");
        env.git(&["commit", "-q", "-a", "-m", "an edit"]);
        // Kept again for the new commit: only the walk can see the next edit.
        kept_status(&env);
    }
    assert_eq!(kept_status(&env), fresh_status(&env));
}

#[test]
fn status_after_a_write_lists_nothing_and_lists_the_derived_folder_when_git_does_not_ignore_it() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Bob prefers tea"]);
    env.wait_for_index();
    // After cogmem's own commit git's index vouches for every file: nothing to list.
    let after = fresh_status(&env);
    assert!(uncommitted_paths(&after).is_empty(), "{after:#}");
    let again = env.run(["status", "--json"]).output();
    let again: serde_json::Value = serde_json::from_str(&again.stdout).expect("JSON");
    assert!(uncommitted_paths(&again).is_empty(), "{again:#}");

    // The walk leaves out `.cogmem/`; when git does not ignore it, status lists what git lists.
    let ignore = env.read(".gitignore").replace(".cogmem/", "");
    env.write(".gitignore", &ignore);
    env.git(&["commit", "-q", "-m", "no longer ignore the derived folder", ".gitignore"]);
    let listed = uncommitted_paths(&fresh_status(&env));
    assert!(listed.iter().any(|p| p.starts_with(".cogmem/")), "{listed:?}");
    assert_eq!(listed, uncommitted_paths(&fresh_status(&env)));
}

/// A copy of a workspace (`cp -a`: new inodes and change times, so no entry of git's index
/// vouches for its file any more) is hashed whole by the first status, which refreshes git's
/// index as `git status` would; the statuses after it hash nothing they need not, say the same,
/// and git agrees the tree is clean but for the edits made.
#[cfg(feature = "timings")]
#[test]
fn a_copied_workspace_is_hashed_once_then_git_s_index_vouches_for_it_again() {
    let env = workspace();
    env.run(["status"]).success();
    let copy = env.home.join("copy");
    let cp = std::process::Command::new("cp").arg("-a").arg(&env.root).arg(&copy).status();
    assert!(cp.unwrap().success());
    std::thread::sleep(Duration::from_millis(1100)); // the copy's times settle before a look
    let status = |what: &str| {
        std::fs::OpenOptions::new()
            .append(true)
            .open(copy.join("MEMORY.md"))
            .and_then(|mut f| std::io::Write::write_all(&mut f, format!("\n- {what}\n").as_bytes()))
            .unwrap();
        let out = env
            .run(["--workspace", copy.to_str().unwrap(), "status", "--json"])
            .env("COGMEM_TIMINGS", "1")
            .output()
            .success();
        let refreshed = out
            .stderr
            .lines()
            .find_map(|l| l.split_once("git's index refreshed (").map(|(_, n)| n.to_owned()));
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        (refreshed, uncommitted_paths(&v))
    };
    let (refreshed, paths) = status("a note by hand");
    let refreshed = refreshed.expect("the first status refreshes git's index");
    let (n, of) = refreshed.trim_end_matches(')').split_once(" of ").unwrap();
    assert!(n.parse::<usize>().unwrap() > 50 && n == of, "{refreshed}");
    assert_eq!(paths, ["MEMORY.md"]);
    let (refreshed, paths) = status("another");
    assert_eq!(refreshed, None, "nothing left to refresh");
    assert_eq!(paths, ["MEMORY.md"]);
    let git = |args: &[&str]| {
        let out = env.git_command(args).current_dir(&copy).output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(git(&["diff", "--cached", "--name-only"]), "", "nothing staged by the refresh");
    assert_eq!(git(&["status", "--porcelain"]), " M MEMORY.md\n");
    git(&["checkout", "--", "MEMORY.md"]);
    let ws = copy.to_str().unwrap();
    env.run(["--workspace", ws, "search", "anything"]).success(); // brings the index up to date
    env.run(["--workspace", ws, "verify"]).success();
}
