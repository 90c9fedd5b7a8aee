//! The change engine under failure: lock timeouts, injected git failures, hand edits in the way.
//! Each must leave HEAD, the working tree and the index exactly as they were.

use std::fs::File;

use crate::common::{TestEnv, wait_until};

#[test]
fn lock_timeout_is_a_clear_error_and_changes_nothing() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[lock]\ntimeout_ms = 150\n");
    env.git_commit_all("shorter lock timeout");
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(env.path(".cogmem/lock"))
        .unwrap();
    lock.lock().unwrap();
    let before = env.snapshot();
    let head = env.head();
    let out = env.run(["remember", "blocked"]).output().code(1);
    assert!(
        out.stderr.starts_with(
            "error: [TMP]/ws/.cogmem/lock is locked by another cogmem command (waited "
        ),
        "{out}"
    );
    assert!(out.stderr.contains("\nhint: wait for the other command to finish"), "{out}");
    assert_eq!(env.head(), head);
    assert_eq!(env.snapshot(), before);
    lock.unlock().unwrap();
    env.mutate(["remember", "unblocked"]);
}

/// A git index locked by another git process makes the commit fail after the files were
/// written; they must all be put back.
#[test]
fn failure_while_staging_restores_everything() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "first", "--entity", "person--alice"]);
    let before = env.snapshot();
    let head = env.head();
    std::fs::write(env.path(".git/index.lock"), "").unwrap();
    let out = env
        .run([
            "remember",
            "second",
            "--entity",
            "person--alice",
            "--entity",
            "person--bob",
            "--store",
            "core",
        ])
        .output();
    assert_eq!(out.code, 1, "{out}");
    assert!(out.stderr.contains("git could not write the index"), "{out}");
    assert!(out.stderr.contains("remove `.git/index.lock`"), "{out}");
    assert!(!out.stderr.contains("caused by"), "the cause is not repeated: {out}");
    std::fs::remove_file(env.path(".git/index.lock")).unwrap();
    assert_eq!(env.head(), head);
    assert_eq!(env.snapshot(), before, "every touched file is back");
    env.assert_clean_tree();
}

/// The branch cannot move (its ref is locked): the commit object exists but is not reachable,
/// the index was already updated and must be reset, the files restored.
#[test]
fn failure_moving_the_branch_restores_files_and_index() {
    let env = TestEnv::initialized();
    let before = env.snapshot();
    let head = env.head();
    std::fs::write(env.path(".git/refs/heads/main.lock"), "").unwrap();
    let out = env.run(["remember", "never lands", "--store", "vault"]).output();
    assert_ne!(out.code, 0, "{out}");
    assert!(out.stderr.contains("git could not move the branch to the new commit"), "{out}");
    std::fs::remove_file(env.path(".git/refs/heads/main.lock")).unwrap();
    assert_eq!(env.head(), head);
    assert_eq!(env.snapshot(), before);
    env.assert_clean_tree();
    env.mutate(["remember", "lands now", "--store", "vault"]);
}

#[test]
fn hand_edits_in_the_way_are_refused_and_kept() {
    let env = TestEnv::initialized();
    let edited = env.read("MEMORY.md") + "- added by hand\n";
    env.write("MEMORY.md", &edited);
    let head = env.head();
    let out = env.run(["remember", "x", "--store", "core"]).output().code(4);
    assert_eq!(
        out.stderr,
        "error: uncommitted edits in the way: MEMORY.md\n\nhint: commit them with `cogmem sync`, or discard them with `git checkout -- FILE`, so that cogmem's commit does not swallow them\n"
    );
    assert_eq!(env.read("MEMORY.md"), edited);
    assert_eq!(env.head(), head);
    // Other stores are not in the way.
    env.run(["remember", "y"]).success();
    assert_eq!(env.git_status(), " M MEMORY.md\n");
    // Staged work of the user's own is not swallowed either.
    env.write("notes.txt", "mine\n");
    env.git(&["add", "notes.txt"]);
    env.run(["remember", "z"]).success();
    assert!(!env.git(&["show", "--name-only", "--format=", "HEAD"]).contains("notes.txt"));
    assert!(env.git_status().contains("A  notes.txt"));
}

#[test]
fn git_history_stays_valid() {
    let env = TestEnv::initialized();
    for i in 0..5 {
        env.mutate(["remember", &format!("memory {i}"), "--entity", "concept--testing"]);
    }
    env.git(&["fsck", "--strict", "--no-dangling"]);
    assert_eq!(env.commit_count(), 6);
}

#[test]
fn subagents_cannot_write_directly() {
    let env = TestEnv::initialized();
    let head = env.head();
    let out = env.run(["remember", "x", "--actor", "subagent:researcher"]).output().code(4);
    assert_eq!(
        out.stderr,
        "error: subagent:researcher is a sub-agent; sub-agents may only propose memories, not write them\n\nhint: hand the memory to the main agent, which decides what is written\n"
    );
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

#[test]
fn detached_head_is_refused_before_anything_is_written() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "one"]);
    let head = env.head();
    env.git(&["checkout", "-q", "--detach"]);
    let before = env.snapshot();
    let out = env.run(["remember", "two"]).output().code(1);
    assert_eq!(
        out.stderr,
        "error: HEAD is detached; cogmem commits to a branch\n\nhint: check out a branch first, e.g. `git switch main`\n"
    );
    assert_eq!(env.snapshot(), before);
    assert_eq!(env.git(&["rev-parse", "main"]).trim(), head);
}

/// libgit2 never packs; past `git.auto_pack_loose` loose objects a commit starts `git repack`
/// in the background, and the repository stays whole while and after it runs.
#[test]
fn many_loose_objects_are_packed_in_the_background() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[git]\nauto_pack_loose = 30\n");
    env.git_commit_all("pack early");
    assert_eq!(env.packs(), 0);
    for i in 0..8 {
        env.mutate(["remember", &format!("Packing probe {i}: the rota changes on Mondays")]);
    }
    // The gc runs detached from the command; give it time (no timing is asserted).
    let minute = std::time::Duration::from_secs(60);
    assert!(wait_until(minute, || env.packs() > 0), "no pack after 60 s");
    // One repack at a time, its lock gone when it is done.
    let lock = env.path(".git/cogmem-repack.lock");
    assert!(wait_until(minute, || !lock.exists()), "the repack lock outlived the repack");
    // Changes made while repacks run (each may start one) never fail: a repack that removes an
    // object folder a commit is writing into makes the write retry.
    for i in 0..20 {
        env.mutate(["remember", &format!("During packing {i}: the rota is posted on Fridays")]);
    }
    env.mutate(["remember", "After packing: the rota still changes on Mondays"]);
    // A repack the last changes started removes loose objects as it packs them: fsck after it.
    assert!(wait_until(minute, || !lock.exists()), "the repack lock outlived the repack");
    env.git(&["fsck", "--full", "--strict"]);
    let log = env.git(&["log", "--format=%s"]);
    assert!(log.contains("Packing probe 7") && log.contains("After packing"), "{log}");
}

/// With git's `index.skipHash` set in the workspace's repository, a write leaves git's index
/// without its checksum, as git itself would, and git and cogmem go on reading it; without it,
/// the checksum is there.
#[test]
fn a_write_honours_gits_index_skip_hash() {
    let env = TestEnv::initialized();
    let trailer = || {
        let bytes = std::fs::read(env.path(".git/index")).unwrap();
        bytes[bytes.len() - 20..].to_vec()
    };
    env.mutate(["remember", "Checksum probe: the rota changes on Mondays"]);
    assert_ne!(trailer(), [0; 20], "no skipHash: the checksum is written");
    env.git(&["config", "index.skipHash", "true"]);
    env.mutate(["remember", "Checksum probe: the rota is posted on Fridays"]);
    assert_eq!(trailer(), [0; 20], "skipHash: no checksum");
    env.mutate(["remember", "Checksum probe: the rota is signed on Sundays"]);
    assert_eq!(trailer(), [0; 20]);
    assert_eq!(env.git(&["status", "--porcelain"]), "");
    env.git(&["fsck", "--strict"]);
    let status = env.run(["status", "--json"]).success();
    assert!(status.stdout.contains("\"uncommitted\": []"), "{}", status.stdout);
    env.git(&["config", "index.skipHash", "false"]);
    env.mutate(["remember", "Checksum probe: the rota moves on holidays"]);
    assert_ne!(trailer(), [0; 20], "skipHash off again: the checksum is back");
}

/// `feature.manyFiles` (git's setting for large repositories): git's index in version 4
/// (paths prefix-compressed) and without its checksum. A write patches it as such and keeps
/// both; git and cogmem go on reading it.
#[test]
fn a_write_keeps_the_index_feature_many_files_asks_for() {
    let env = TestEnv::initialized();
    env.git(&["config", "feature.manyFiles", "true"]);
    env.git(&["update-index", "--index-version", "4"]);
    let index = || std::fs::read(env.path(".git/index")).unwrap();
    for text in ["Many files: the rota changes on Mondays", "Many files: Ada owns the rota"] {
        env.mutate(["remember", text]);
        let bytes = index();
        assert_eq!(bytes[4..8], [0, 0, 0, 4], "version 4 kept");
        assert_eq!(bytes[bytes.len() - 20..], [0; 20], "no checksum, as manyFiles asks");
    }
    assert_eq!(env.git(&["status", "--porcelain"]), "");
    env.git(&["fsck", "--strict"]);
    let status = env.run(["status", "--json"]).success();
    assert!(status.stdout.contains("\"uncommitted\": []"), "{}", status.stdout);
    let found = env.run(["search", "rota"]).success();
    assert!(found.stdout.contains("Ada owns the rota"), "{}", found.stdout);
}

/// Loose objects that are few but large (an incompressible note committed by `sync`) start
/// the repack too once they pass `git.auto_pack_loose_mb`, with the count trigger off.
#[test]
fn large_loose_objects_are_packed_by_their_size() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[git]\nauto_pack_loose = 0\nauto_pack_loose_mb = 1\n");
    env.git_commit_all("pack by size");
    // A small change leaves well under a megabyte loose: nothing starts.
    env.mutate(["remember", "Size probe: the rota changes on Mondays"]);
    let lock = env.path(".git/cogmem-repack.lock");
    assert!(!lock.exists() && env.packs() == 0, "a repack started under the size limit");
    // 1.5 MB that zlib cannot shrink (a seeded xorshift, hex-free bytes as text).
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let noise: String = (0..1_500_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'!' + (x % 90) as u8)
        })
        .collect();
    env.write("memory/vault/noise.md", &format!("# Noise\n\n{noise}\n"));
    // Random bytes hold shapes the secret scanner refuses in an agent's hand edit.
    env.mutate(["sync", "--allow-secret"]);
    let minute = std::time::Duration::from_secs(60);
    assert!(wait_until(minute, || env.packs() > 0), "no pack after 60 s");
    assert!(wait_until(minute, || !lock.exists()), "the repack lock outlived the repack");
    env.git(&["fsck", "--full", "--strict"]);
}

/// `sync` records a hand edit with `Change::keep`: the bytes it read are committed and the file
/// is never written back. A person who edits the file again between that read and the commit
/// (a watcher syncs while they type) keeps the newer edit, which stays uncommitted for git and
/// cogmem to see. (Written back, as it was, the newer edit was lost from the file and from the
/// history alike.)
#[test]
fn a_kept_hand_edit_is_committed_as_read_and_a_newer_edit_survives() {
    use cogmem::audit::{Action, Actor};
    use cogmem::change::Change;
    let env = TestEnv::initialized();
    let rel = "memory/vault/plan.md";
    let read = b"# Plan\n\nthe first draft\n".to_vec();
    env.write(rel, std::str::from_utf8(&read).unwrap());
    let ws = cogmem::Workspace::open(&env.root).unwrap();
    let repo = cogmem::git::open(ws.root()).unwrap();
    let lock = ws.lock().unwrap();
    let mut change = Change::new(Actor::parse("manual").unwrap(), "cogmem sync").allow_dirty();
    change.keep(rel, read.clone(), Action::Create, "created by hand");
    // The person saves again after the read, before the commit.
    env.write(rel, "# Plan\n\nthe latest draft\n");
    // Of the same size, and dated a minute back: only the index entry can tell git it changed.
    let minute_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    File::options().write(true).open(env.path(rel)).unwrap().set_modified(minute_ago).unwrap();
    let clock = crate::common::clock("2026-12-01T10:00:00Z");
    let applied = change.apply(&ws, &repo, &lock, &clock).unwrap();
    drop(lock);
    assert_eq!(env.read(rel), "# Plan\n\nthe latest draft\n", "the newer edit is on disk");
    assert_eq!(
        env.git(&["show", &format!("{}:{rel}", applied.commit)]),
        "# Plan\n\nthe first draft\n"
    );
    assert!(env.read("memory/meta/audit.log").contains(&format!("| CREATE | {rel} |")));
    // git sees the newer edit as an edit, not as clean stat data.
    assert_eq!(env.git(&["status", "--porcelain"]), format!(" M {rel}\n"));
    assert_eq!(env.git(&["diff", "--cached", "--name-only"]), "");
    // And the next sync commits it.
    env.run(["sync"]).success();
    assert_eq!(env.git(&["show", &format!("HEAD:{rel}")]), "# Plan\n\nthe latest draft\n");
    env.assert_clean_tree();
}

/// `sync` commits a hand edit without writing the file again (it keeps its inode and its
/// modification time): nothing a person saves meanwhile can be overwritten.
#[cfg(unix)]
#[test]
fn sync_commits_a_hand_edit_without_rewriting_the_file() {
    use std::os::unix::fs::MetadataExt;
    let env = TestEnv::initialized();
    let rel = "memory/vault/plan.md";
    env.write(rel, "# Plan\n\nthe first draft\n");
    let stamp = |env: &TestEnv| {
        let md = std::fs::metadata(env.path(rel)).unwrap();
        (md.ino(), md.mtime(), md.mtime_nsec())
    };
    let before = stamp(&env);
    env.run(["sync"]).success();
    assert_eq!(env.git(&["show", &format!("HEAD:{rel}")]), "# Plan\n\nthe first draft\n");
    assert_eq!(stamp(&env), before, "the file was written again");
    env.assert_clean_tree();
}

/// A change's objects are written while its files are (issue 20): what it commits must still be
/// byte for byte what it leaves on disk, the audit log's appended lines included, when the log's
/// last line had no newline and when an executable bit is kept.
#[test]
fn what_is_committed_is_what_is_on_disk_when_the_objects_are_built_ahead() {
    let env = TestEnv::initialized();
    let log = env.read("memory/meta/audit.log");
    env.write("memory/meta/audit.log", log.trim_end_matches('\n'));
    let core = env.path("MEMORY.md");
    let mut perms = std::fs::metadata(&core).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&core, perms).unwrap();
    env.git_commit_all("an unended audit line; MEMORY.md executable");
    // (The first write also adopts the hand-made commit, in a commit of its own.)
    env.run(["remember", "Dana prefers tea", "--entity", "person--dana"]).success();
    env.assert_clean_tree();
    env.mutate(["remember", "the core fact", "--store", "core"]);
    for rel in ["memory/meta/audit.log", "MEMORY.md", "memory/graph/entities/person--dana.md"] {
        let committed = env.git(&["show", &format!("HEAD:{rel}")]);
        assert_eq!(committed, env.read(rel), "{rel}");
    }
    // The unended line was ended before the new ones: no line holds two.
    let log = env.read("memory/meta/audit.log");
    let lines = log.lines().filter(|l| !l.is_empty() && !l.starts_with('#'));
    assert!(lines.clone().count() > 3, "{log}");
    assert!(lines.clone().all(|l| l.matches(" | ").count() == 5), "{log}");
    assert!(env.git(&["ls-files", "-s", "MEMORY.md"]).starts_with("100755 "));
    env.git(&["fsck", "--strict", "--no-dangling"]);
}
