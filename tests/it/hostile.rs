//! Hostile input at the edges: names that would become paths outside the workspace, symbolic
//! links leading out of it, inputs over the configured size limits, and files that are not
//! UTF-8. Each is refused or skipped with an error naming the problem; nothing outside the
//! workspace is read or written, and nothing panics.

use crate::common::TestEnv;

/// Runs a command that must fail with `code` and a first error line containing `want`, without
/// a commit or a change on disk.
#[track_caller]
fn refused(env: &TestEnv, args: &[&str], stdin: Option<&[u8]>, code: i32, want: &str) {
    let head = env.head();
    let before = env.snapshot();
    let mut cmd = env.run(args);
    if let Some(b) = stdin {
        cmd = cmd.stdin(b);
    }
    let out = cmd.output().code(code);
    let first = out.stderr.lines().next().unwrap_or("");
    assert!(first.starts_with("error: ") && first.contains(want), "{args:?}:\n{out}");
    assert!(!out.stderr.contains("panicked"), "{out}");
    assert_eq!(env.head(), head, "{args:?}: no commit");
    assert_eq!(env.snapshot(), before, "{args:?}: no change on disk");
}

/// Files under the temp folder but outside the workspace.
fn outside_files(env: &TestEnv) -> Vec<String> {
    let mut out: Vec<String> = walkdir::WalkDir::new(&env.home)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| !e.path().starts_with(&env.root) && e.file_type().is_file())
        .map(|e| e.path().display().to_string())
        .collect();
    out.sort();
    out
}

#[test]
fn crafted_ids_are_rejected_at_every_entry_point() {
    let env = TestEnv::initialized();
    let outside_before = outside_files(&env);
    let cases: Vec<(Vec<&str>, i32, &str)> = vec![
        (vec!["remember", "x", "--entity", "person--../../../tmp/evil"], 1, "invalid entity id"),
        (vec!["remember", "x", "--entity", "../person--x"], 1, "invalid entity id"),
        (vec!["remember", "x", "--entity", "/etc/passwd"], 1, "invalid entity id"),
        (vec!["remember", "x", "--entity", "person--a\\..\\b"], 1, "invalid entity id"),
        (vec!["remember", "x", "--entity", "person--a\0b"], 2, ""),
        (vec!["remember", "x", "--entity", "person--a\u{1}b"], 1, "invalid entity id"),
        (
            vec!["remember", "x", "--relation", "person--a|knows|person--../../x"],
            1,
            "invalid entity id",
        ),
        (vec!["graph", "neighbors", "../../../etc/passwd"], 1, ""),
        (vec!["show", "entity:../../../etc/passwd"], 1, "no memory has the id"),
        (vec!["forget", "--id", "../../etc/passwd", "--yes"], 1, "no memory has the id"),
        (vec!["forget", "--purge", "entity:../../x", "--yes"], 1, "no memory has the id"),
        (vec!["restore", "vault:../../x"], 1, ""),
        (vec!["touch", "episode:../../x"], 1, ""),
        (
            vec!["--actor", "subagent:r", "propose", "--entity", "person--../x", "x"],
            1,
            "invalid entity id",
        ),
        (vec!["--actor", "../../x", "remember", "x"], 1, "invalid actor"),
    ];
    for (args, code, want) in cases {
        if code == 2 {
            // A NUL cannot even be passed as an argument; the OS refuses it before cogmem runs.
            continue;
        }
        refused(&env, &args, None, code, want);
    }
    // A title becomes a slug: separators and dots cannot survive.
    let out = env.mutate([
        "remember",
        "--store",
        "procedural",
        "--title",
        "../../../tmp/evil",
        "step one",
    ]);
    assert!(out.stderr.contains("memory/procedures/tmp-evil.md"), "{out}");
    let out = env.mutate(["remember", "--store", "vault", "--title", "/etc/passwd", "a note"]);
    assert!(out.stderr.contains("memory/vault/etc-passwd.md"), "{out}");
    // An import id is a source label, never a file name.
    let jsonl = "{\"timestamp\":\"2026-05-08T13:56:00Z\",\"speaker\":\"A\",\"text\":\"hi there\",\"id\":\"../../../tmp/evil\"}\n";
    env.run(["import", "-"]).stdin(jsonl.as_bytes()).success();
    assert_eq!(outside_files(&env), outside_before, "nothing written outside the workspace");
}

#[test]
fn operation_targets_outside_the_workspace_are_rejected() {
    let env = TestEnv::initialized();
    env.run(["remember", "Bob talked about the garden"]).success();
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
    for target in [
        "../../etc/passwd",
        "/etc/passwd",
        "memory/../../x.md",
        "memory\\..\\x.md",
        "entity:../../x",
        "C:/x.md",
        "~/.ssh/id_rsa",
    ] {
        let text = format!(
            "Thinking.\n\nOPERATION: EXTRACT\nTARGET: {target}\nCONTENT: x\nREASON: y\n---\n"
        );
        refused(&env, &["reflect", "submit", "-"], Some(text.as_bytes()), 1, "reflection block 1");
    }
}

#[cfg(unix)]
/// `init` refused for a link where the template puts a file or folder leaves the folder as it
/// was: no `.git` or `.cogmem/` of its own (they were left, half a workspace), and it runs once
/// the link is gone.
#[test]
fn a_refused_init_leaves_no_git_or_state_folder() {
    let env = TestEnv::new();
    let outside = env.home.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(env.root.join("memory")).unwrap();
    std::os::unix::fs::symlink(&outside, env.root.join("memory/episodes")).unwrap();
    let out = env.run(["init"]).output();
    assert_ne!(out.code, 0, "{out}");
    assert!(out.stderr.contains("symbolic link"), "{out}");
    assert!(!env.root.join(".git").exists() && !env.root.join(".cogmem").exists(), "{out}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "nothing written outside");
    std::fs::remove_file(env.root.join("memory/episodes")).unwrap();
    env.run(["init"]).success();
    env.assert_clean_tree();
}

/// `init` of a folder whose `cogmem.toml` is a link: refused before the settings are read
/// (it parsed the file the link led to, outside the folder).
#[test]
fn init_does_not_read_settings_through_a_link() {
    let env = TestEnv::new();
    let outside = env.home.join("outside.toml");
    std::fs::write(&outside, "not = toml = at all\n").unwrap();
    std::fs::create_dir_all(&env.root).unwrap();
    std::os::unix::fs::symlink(&outside, env.root.join("cogmem.toml")).unwrap();
    let out = env.run(["init"]).output().code(1);
    assert!(out.stderr.contains("symbolic link"), "{out}");
    assert!(!out.stderr.contains("expected"), "the outside file was parsed: {out}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "not = toml = at all\n");
}

#[test]
fn symlinks_out_of_the_workspace_are_not_followed() {
    use std::os::unix::fs::symlink;
    let env = TestEnv::initialized();
    env.run(["remember", "--entity", "person--alice", "Alice likes tea"]).success();
    let outside = env.home.join("outside.md");
    std::fs::write(&outside, "# Evil\n\nzanzibar-marker outside text\n").unwrap();
    symlink(&outside, env.path("memory/graph/entities/evil.md")).unwrap();
    symlink(&outside, env.path("memory/graph/entities/person--mallory.md")).unwrap();
    env.git_commit_all("links");
    // Not read into the index or the unit list, and reported (exit 3).
    let out = env.run(["reindex"]).output().code(3);
    assert!(out.stderr.contains("memory/graph/entities/evil.md: a symbolic link"), "{out}");
    let out = env.run(["search", "zanzibar"]).output();
    assert!(!out.stdout.contains("zanzibar"), "{out}");
    let out = env.run(["search", "tea", "--json"]).output().code(3);
    assert!(!out.stdout.contains("mallory"), "{out}");
    // Not written through.
    let before = std::fs::read(&outside).unwrap();
    let out = env.run(["remember", "--entity", "person--mallory", "Mallory lies"]).output();
    assert_ne!(out.code, 0, "{out}");
    assert!(out.stderr.contains("symbolic link"), "{out}");
    assert_eq!(std::fs::read(&outside).unwrap(), before, "the outside file is unchanged");
    // A store folder that is a link out of the workspace: not read, not written.
    let outside_dir = env.home.join("outside-vault");
    std::fs::create_dir(&outside_dir).unwrap();
    std::fs::write(outside_dir.join("secret.md"), "# S\n\nquetzal-marker\n").unwrap();
    std::fs::remove_dir_all(env.path("memory/vault")).ok();
    symlink(&outside_dir, env.path("memory/vault")).unwrap();
    env.git_commit_all("vault link");
    env.run(["reindex"]).output().code(3);
    let out = env.run(["search", "quetzal"]).output();
    assert!(!out.stdout.contains("quetzal"), "{out}");
    let out = env.run(["remember", "--store", "vault", "a pinned note"]).output();
    assert_ne!(out.code, 0, "{out}");
    assert!(out.stderr.contains("symbolic link"), "{out}");
    assert_eq!(std::fs::read_dir(&outside_dir).unwrap().count(), 1, "nothing written there");
    // Links the user owns outside a workspace are theirs: a linked transcript imports, and a
    // workspace reached through a linked folder works.
    let real = env.home.join("chat-real.jsonl");
    std::fs::write(&real, "{\"timestamp\":\"2026-05-08\",\"speaker\":\"A\",\"text\":\"hello\"}\n")
        .unwrap();
    symlink(&real, env.home.join("chat.jsonl")).unwrap();
    env.run(["import", "../chat.jsonl"]).success();
    symlink(&env.root, env.home.join("ws-link")).unwrap();
    let link = env.home.join("ws-link");
    env.run(["--workspace", link.to_str().unwrap(), "remember", "through a linked root"]).success();
    // A link that stays inside the workspace is fine to read.
    let env2 = TestEnv::initialized();
    env2.write("notes.md", "# N\n");
    symlink(env2.path("notes.md"), env2.path("memory/graph/entities/topic--notes.md")).unwrap();
    assert!(
        cogmem::store::fsx::check_inside(
            &env2.path("memory/graph/entities/topic--notes.md"),
            "read"
        )
        .is_ok()
    );
}

#[test]
fn inputs_over_the_configured_limits_are_refused_naming_the_key() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[limits]\ntext_bytes = 100\nimport_bytes = 300\nfile_bytes = 4096\n");
    env.git_commit_all("small limits");
    let long = "word ".repeat(21);
    refused(&env, &["remember", &long], None, 1, "the limit is 100 bytes (`limits.text_bytes`");
    refused(&env, &["remember", "-"], Some(long.as_bytes()), 1, "`limits.text_bytes`");
    refused(&env, &["--actor", "subagent:r", "propose", &long], None, 1, "`limits.text_bytes`");
    refused(&env, &["hear", &format!("remember that {long}")], None, 1, "`limits.text_bytes`");
    let line = "{\"timestamp\":\"2026-05-08T13:56:00Z\",\"speaker\":\"A\",\"text\":\"hello\"}\n";
    let big = line.repeat(6);
    env.write("../big.jsonl", &big);
    refused(&env, &["import", "../big.jsonl"], None, 1, "`limits.import_bytes`");
    refused(&env, &["import", "-"], Some(big.as_bytes()), 1, "`limits.import_bytes`");
    // A workspace file over `limits.file_bytes` is skipped with a warning naming the key.
    env.write("memory/episodes/2026-01-01.md", &format!("# 2026-01-01\n\n{}", "x ".repeat(3000)));
    env.git_commit_all("huge episode");
    let out = env.run(["reindex"]).output();
    assert!(out.stderr.contains("memory/episodes/2026-01-01.md"), "{out}");
    assert!(out.stderr.contains("`limits.file_bytes`"), "{out}");
    assert!(!out.stderr.contains("panicked"), "{out}");
    // Out-of-range settings are refused.
    env.write("cogmem.toml", "[limits]\ntext_bytes = 0\n");
    env.git_commit_all("zero");
    refused(&env, &["status"], None, 1, "limits.text_bytes");
}

#[test]
fn invalid_utf8_is_reported_with_path_and_byte_offset_and_skipped() {
    let env = TestEnv::initialized();
    env.run(["remember", "Alice likes green tea"]).success();
    let mut bytes = b"# 2026-01-02\n\n## 10:00 \xe2\x80\x94 fact\n\nok".to_vec();
    let offset = bytes.len();
    bytes.extend_from_slice(b"\xff\xfe broken\n");
    std::fs::write(env.path("memory/episodes/2026-01-02.md"), &bytes).unwrap();
    std::fs::write(env.path("memory/graph/entities/person--bad.md"), b"\xc3\x28").unwrap();
    env.git_commit_all("bad bytes");
    for args in [vec!["reindex"], vec!["search", "tea"], vec!["status"], vec!["context"]] {
        let out = env.run(&args).output();
        assert!(out.code == 0 || out.code == 3, "{args:?}: {out}");
        assert!(!out.stderr.contains("panicked"), "{out}");
    }
    let out = env.run(["reindex", "--full"]).output();
    assert!(
        out.stderr
            .contains(&format!("memory/episodes/2026-01-02.md: not valid UTF-8 at byte {offset}")),
        "{out}"
    );
    assert!(out.stderr.contains("person--bad.md: not valid UTF-8 at byte 0"), "{out}");
    let out = env.run(["search", "tea"]).output();
    assert!(out.stdout.contains("green tea"), "the good files still answer: {out}");
}

#[test]
fn mcp_arguments_that_would_become_paths_are_rejected() {
    let env = TestEnv::initialized();
    let outside_before = outside_files(&env);
    let head = env.head();
    let calls = [
        serde_json::json!({"name":"remember","arguments":{"text":"x","entities":["person--../../evil"]}}),
        serde_json::json!({"name":"remember","arguments":{"text":"x","relations":["person--a|knows|../../b"]}}),
        serde_json::json!({"name":"show","arguments":{"id":"entity:../../../etc/passwd"}}),
        serde_json::json!({"name":"forget","arguments":{"id":"../../etc/passwd","confirm":true}}),
        serde_json::json!({"name":"graph_neighbors","arguments":{"entity":"../../../etc/passwd"}}),
        serde_json::json!({"name":"propose","arguments":{"text":"x","from":"../../r"}}),
        serde_json::json!({"name":"propose","arguments":{"text":"x","from":"r","entities":["/etc/passwd"]}}),
    ];
    let answers = crate::secrets::mcp_calls(&env, &calls);
    for (call, a) in calls.iter().zip(&answers) {
        assert_eq!(a["result"]["isError"], true, "{call} gave {a}");
    }
    assert_eq!(env.head(), head, "no commit");
    assert_eq!(outside_files(&env), outside_before, "nothing written outside the workspace");
}

/// Replaces `rel` in the workspace with a symbolic link to `target`.
#[cfg(unix)]
fn link(env: &TestEnv, rel: &str, target: &std::path::Path) {
    let path = env.path(rel);
    if path.is_dir() {
        // Not from under a background index update that writes in `.cogmem/`.
        env.wait_for_index();
        std::fs::remove_dir_all(&path).unwrap();
    } else {
        std::fs::remove_file(&path).ok();
    }
    std::os::unix::fs::symlink(target, &path).unwrap();
}

#[cfg(unix)]
#[test]
fn an_audit_log_that_is_a_link_is_not_appended_through() {
    let env = TestEnv::initialized();
    env.run(["remember", "Alice likes tea"]).success();
    let outside = env.home.join("outside.log");
    std::fs::write(&outside, "precious\n").unwrap();
    link(&env, "memory/meta/audit.log", &outside);
    env.git_commit_all("a peer's link");
    // A user error (exit 1): the workspace holds a link cogmem will not write through; the
    // change is rolled back before its commit.
    refused(&env, &["remember", "x"], None, 1, "memory/meta/audit.log");
    let out = env.run(["remember", "x"]).output();
    assert!(out.stderr.contains("is a symbolic link"), "{out}");
    assert!(out.stderr.contains("replace the link with a real folder or file"), "{out}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious\n", "outside unchanged");
    // A link inside the workspace (into `.git/config`, which a peer can commit) is refused too.
    let config = std::fs::read(env.path(".git/config")).unwrap();
    link(&env, "memory/meta/audit.log", &env.path(".git/config"));
    env.git_commit_all("a link into .git");
    refused(&env, &["remember", "x"], None, 1, "memory/meta/audit.log");
    assert_eq!(std::fs::read(env.path(".git/config")).unwrap(), config, "the repository is intact");
}

#[cfg(unix)]
#[test]
fn an_access_log_that_is_a_link_is_not_appended_through() {
    let env = TestEnv::initialized();
    env.run(["remember", "Alice likes tea"]).success();
    let outside = env.home.join("outside.log");
    std::fs::write(&outside, "precious\n").unwrap();
    link(&env, ".cogmem/access.log", &outside);
    // Recall may answer or fail, but it does not write through the link.
    let out = env.run(["recall", "tea"]).output();
    assert!(!out.stderr.contains("panicked"), "{out}");
    if out.code != 0 {
        assert!(out.stderr.contains(".cogmem/access.log"), "{out}");
        assert!(out.stderr.contains("symbolic link"), "{out}");
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious\n", "outside unchanged");
}

#[cfg(unix)]
#[test]
fn a_state_folder_that_is_a_link_is_not_written_through() {
    let env = TestEnv::initialized();
    env.run(["remember", "Alice likes tea"]).success();
    let outside = env.home.join("outside-state");
    std::fs::create_dir(&outside).unwrap();
    link(&env, ".cogmem", &outside);
    let head = env.head();
    let out = env.run(["remember", "x"]).output();
    assert_eq!(out.code, 1, "{out}");
    assert!(out.stderr.contains(".cogmem"), "{out}");
    assert!(out.stderr.contains("symbolic link"), "{out}");
    assert_eq!(env.head(), head, "nothing committed");
    let out = env.run(["recall", "tea"]).output();
    assert!(!out.stderr.contains("panicked"), "{out}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "nothing written outside");
}

// See: issue 16
#[cfg(unix)]
#[test]
fn issue_16_a_write_that_fails_for_lack_of_space_rolls_back_and_leaves_no_journal() {
    let env = TestEnv::initialized();
    // An episode file bigger than the system's file size limit below, so rewriting it fails
    // as a write on a full disk does (EFBIG; ENOSPC takes the same path).
    env.mutate(["remember", &format!("first note {}", "filler ".repeat(300))]);
    let before = env.snapshot();
    let head = env.head();
    let cogmem = env.run(["remember", "second note"]).into_command();
    let mut sh = std::process::Command::new("sh");
    sh.env_clear()
        .envs(cogmem.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .current_dir(cogmem.get_current_dir().unwrap())
        .args(["-c", "trap '' XFSZ; ulimit -f 2; exec \"$0\" \"$@\""])
        .arg(cogmem.get_program())
        .args(cogmem.get_args());
    let out = sh.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "a user-facing failure, not an internal one: {stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert!(stderr.contains("hint: free some disk space"), "{stderr}");
    assert_eq!(env.head(), head, "nothing committed");
    assert!(!env.path(".cogmem/journal/manifest").exists(), "the journal is removed");
    assert_eq!(env.snapshot(), before, "every file as before");
    env.assert_clean_tree();
    let (code, _, v) = {
        let out = env.run(["verify", "--json"]).output();
        (out.code, (), out.stdout)
    };
    assert_eq!(code, 0, "{v}");
}

// See: issue 16
#[test]
fn issue_16_status_reports_an_unreadable_entity_file() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "--entity", "person--bob", "Bob likes tea"]);
    let rel = "memory/graph/entities/person--bob.md";
    let mut bytes = std::fs::read(env.path(rel)).unwrap();
    bytes.extend_from_slice(b"\xff\n");
    std::fs::write(env.path(rel), &bytes).unwrap();
    env.git_commit_all("a bad byte");
    let out = env.run(["status"]).output().code(3);
    assert!(out.stderr.contains(&format!("{rel}: not valid UTF-8")), "{out}");
    let out = env.run(["status", "--json"]).output().code(3);
    assert!(out.stdout.contains("person--bob.md"), "{out}");
}

// See: issue 16
#[cfg(unix)]
#[test]
fn issue_16_symbolic_links_in_store_folders_are_reported_not_skipped_silently() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice likes tea"]);
    let outside = env.home.join("outside.md");
    std::fs::write(&outside, "# Outside\n\nzanzibar\n").unwrap();
    std::os::unix::fs::symlink(&outside, env.path("memory/vault/outside.md")).unwrap();
    std::os::unix::fs::symlink(env.path("MEMORY.md"), env.path("memory/vault/inside.md")).unwrap();
    env.git_commit_all("a peer's links");
    for args in [vec!["status"], vec!["reindex"], vec!["search", "tea"], vec!["recall", "tea"]] {
        let out = env.run(&args).output();
        assert_eq!(out.code, 3, "{args:?}: {out}");
        for link in ["memory/vault/outside.md", "memory/vault/inside.md"] {
            assert!(out.stderr.contains(&format!("{link}: a symbolic link")), "{args:?}: {out}");
        }
        assert!(!out.stdout.contains("zanzibar"), "{out}");
    }
    let out = env.run(["verify"]).output().code(3);
    assert!(out.stdout.contains("schema       memory/vault/outside.md: a symbolic link"), "{out}");
    // A store folder that is a link out of the workspace is reported the same way.
    let dir = env.home.join("elsewhere");
    std::fs::create_dir(&dir).unwrap();
    std::fs::remove_dir_all(env.path("memory/procedures")).unwrap();
    std::os::unix::fs::symlink(&dir, env.path("memory/procedures")).unwrap();
    let out = env.run(["status"]).output().code(3);
    assert!(out.stderr.contains("memory/procedures: a symbolic link"), "{out}");
}

// See: issue 16
#[cfg(unix)]
#[test]
fn issue_16_a_peers_link_in_a_memory_file_path_is_refused() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice likes tea"]);
    // A link that stays inside the workspace, into the repository's own config.
    let config = std::fs::read(env.path(".git/config")).unwrap();
    std::fs::write(env.path(".git/config"), [config.as_slice(), b"# zanzibar-marker\n"].concat())
        .unwrap();
    let config = std::fs::read(env.path(".git/config")).unwrap();
    std::os::unix::fs::symlink(
        "../../../.git/config",
        env.path("memory/graph/entities/person--bob.md"),
    )
    .unwrap();
    env.git_commit_all("a peer's link");
    let head = env.head();
    let out = env.run(["remember", "--entity", "person--bob", "Bob likes rum"]).output().code(1);
    assert!(out.stderr.contains("memory/graph/entities/person--bob.md"), "{out}");
    assert!(out.stderr.contains("is a symbolic link"), "{out}");
    assert!(out.stderr.contains("hint: replace the link with a real folder or file"), "{out}");
    assert_eq!(env.head(), head, "nothing committed");
    assert!(
        std::fs::symlink_metadata(env.path("memory/graph/entities/person--bob.md"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is left as it is"
    );
    assert_eq!(std::fs::read(env.path(".git/config")).unwrap(), config);
    let history = env.git(&["log", "-p", "--all"]);
    assert!(!history.contains("zanzibar-marker"), "the config never lands in a commit");
    assert!(!env.path(".cogmem/journal/manifest").exists());
}

// See: issue 16
#[cfg(unix)]
#[test]
fn issue_16_a_linked_index_folder_is_not_written_through() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice likes tea"]);
    env.run(["search", "tea"]).success();
    // The index folder moved into the workspace and linked back: still inside, still refused.
    std::fs::rename(env.path(".cogmem/index"), env.path("memory/vault/idx")).unwrap();
    std::os::unix::fs::symlink("../memory/vault/idx", env.path(".cogmem/index")).unwrap();
    let listing = || {
        let mut names: Vec<_> = std::fs::read_dir(env.path("memory/vault/idx"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        names
    };
    let before = listing();
    env.write("memory/vault/new.md", "# New\n\nBob likes rum\n");
    env.git_commit_all("a new note");
    let out = env.run(["search", "rum"]).output();
    assert_eq!(out.code, 1, "{out}");
    assert!(out.stderr.contains(".cogmem/index"), "{out}");
    assert!(out.stderr.contains("symbolic link"), "{out}");
    assert_eq!(listing(), before, "nothing written through the link");
}

// See: issue 16
#[cfg(unix)]
#[test]
fn issue_16_a_watch_file_that_is_a_link_is_not_emptied() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice likes tea"]);
    let outside = env.home.join("precious.txt");
    std::fs::write(&outside, "precious\n").unwrap();
    std::fs::create_dir_all(env.path(".cogmem/watch")).unwrap();
    std::os::unix::fs::symlink(&outside, env.path(".cogmem/watch/changed")).unwrap();
    let mut child = env
        .run(["watch"])
        .into_command()
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let emptied = || std::fs::read_to_string(&outside).unwrap() != "precious\n";
    crate::common::wait_until(std::time::Duration::from_secs(60), || {
        emptied() || child.try_wait().unwrap().is_some()
    });
    let _ = child.kill();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(!emptied(), "the file outside is intact: {stderr}");
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
}
