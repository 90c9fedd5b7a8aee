//! Bad input: a one-line error naming the problem, a hint, a non-zero exit, no change on disk.

use crate::common::TestEnv;

#[track_caller]
fn refused(env: &TestEnv, args: &[&str], stdin: Option<&[u8]>, code: i32, starts: &str) {
    let before = env.snapshot();
    let head = env.head();
    let mut cmd = env.run(args);
    if let Some(bytes) = stdin {
        cmd = cmd.stdin(bytes);
    }
    let out = cmd.output().code(code);
    assert!(out.stderr.starts_with(starts), "args {args:?}:\n{out}");
    assert_eq!(out.stderr.lines().next().map(|l| l.starts_with("error: ")), Some(true));
    assert_eq!(env.head(), head, "args {args:?}: no commit");
    assert_eq!(env.snapshot(), before, "args {args:?}: no change on disk");
}

/// (arguments, stdin, exit code, start of the error)
type Case<'a> = (Vec<&'a str>, Option<&'a [u8]>, i32, &'a str);

#[test]
fn bad_remember_requests() {
    let env = TestEnv::initialized();
    let big = vec![b'a'; 64 * 1024 + 1];
    let cases: Vec<Case<'_>> = vec![
        (vec!["remember", ""], None, 1, "error: the text to remember is empty"),
        (vec!["remember", "  \n "], None, 1, "error: the text to remember is empty"),
        (
            vec!["remember", "-"],
            Some(&big),
            1,
            "error: the text is 65537 bytes; the limit is 65536 bytes",
        ),
        (
            vec!["remember", "-"],
            Some(b"\xff\xfe"),
            1,
            "error: the text read from stdin is not valid UTF-8",
        ),
        (
            vec!["remember", "x", "--entity", "person--a/b"],
            None,
            1,
            "error: invalid entity id \"person--a/b\": it contains a path separator",
        ),
        (
            vec!["remember", "x", "--entity", "person--../../etc"],
            None,
            1,
            "error: invalid entity id \"person--../../etc\": it contains `..`",
        ),
        (vec!["remember", "x", "--entity", "person--a\u{1}b"], None, 1, "error: invalid entity id"),
        (
            vec!["remember", "x", "--entity", "Alice"],
            None,
            1,
            "error: invalid entity id \"Alice\": it has no `--`",
        ),
        (
            vec!["remember", "x", "--store", "attic"],
            None,
            2,
            "error: invalid value 'attic' for '--store <STORE>'",
        ),
        (
            vec!["remember", "x", "--store", "semantic"],
            None,
            1,
            "error: the semantic store needs an entity",
        ),
        (
            vec!["remember", "x", "--type", "musing"],
            None,
            2,
            "error: invalid value 'musing' for '--type <TYPE>'",
        ),
        (
            vec!["remember", "x", "--relation", "person--a|likes"],
            None,
            1,
            "error: invalid relation",
        ),
        (
            vec!["remember", "x", "--at", "soonish"],
            None,
            1,
            "error: --at: cannot read \"soonish\" as a date or time",
        ),
        (vec!["remember", "x", "--actor", "evil|actor"], None, 1, "error: invalid actor"),
        (
            vec!["remember", "x", "--section", "attic", "--store", "core"],
            None,
            2,
            "error: invalid value 'attic' for '--section <SECTION>'",
        ),
        (
            vec!["remember", "x", "--section", "persona"],
            None,
            1,
            "error: --section applies only to the core store",
        ),
        (
            vec!["remember", "x", "--title", "T"],
            None,
            1,
            "error: --title applies only to the procedural or vault store",
        ),
        (vec!["remember"], None, 2, "error: the following required arguments were not provided"),
    ];
    for (args, stdin, code, starts) in cases {
        refused(&env, &args, stdin, code, starts);
    }
}

#[test]
fn malformed_settings_name_the_key_and_line() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[decay]\nlambda = 0.05\nlamda = 0.1\n");
    env.git_commit_all("typo");
    refused(
        &env,
        &["remember", "x"],
        None,
        1,
        "error: [TMP]/ws/cogmem.toml:3: unknown field `lamda`",
    );
    env.write("cogmem.toml", "[core\n");
    env.git_commit_all("broken");
    refused(&env, &["status"], None, 1, "error: [TMP]/ws/cogmem.toml:1:");
}

#[test]
fn core_budget_is_a_rule_with_exit_4() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[core]\nbudget_tokens = 200\n");
    env.git_commit_all("tiny budget");
    refused(
        &env,
        &["remember", "one more thing", "--store", "core"],
        None,
        4,
        "error: [TMP]/ws/MEMORY.md: adding this would make core memory",
    );
    let out = env.run(["remember", "x", "--store", "core"]).output();
    assert!(out.stderr.contains("hint: shorten MEMORY.md"), "{out}");
}

#[test]
fn outside_a_workspace_says_how_to_make_one() {
    let env = TestEnv::new();
    let out = env.run(["status"]).output().code(1);
    assert_eq!(
        out.stderr,
        "error: not inside a cogmem workspace (searched [TMP] and its parents)\n\nhint: create one with `cogmem init`, or point to one with `--workspace PATH` or COGMEM_WORKSPACE\n"
    );
    let out = env.run(["remember", "x", "--workspace", "/nonexistent"]).output().code(1);
    assert!(out.stderr.starts_with("error: /nonexistent is not a cogmem workspace"), "{out}");
}

#[test]
fn missing_or_damaged_repository() {
    let env = TestEnv::initialized();
    std::fs::rename(env.path(".git"), env.home.join("git-backup")).unwrap();
    let out = env.run(["remember", "x"]).output().code(1);
    assert_eq!(
        out.stderr,
        "error: [TMP]/ws has no git repository\n\nhint: run `cogmem init` in the workspace to start its git history\n"
    );
    assert!(!env.path("memory/episodes/2026-12-01.md").exists());
    std::fs::rename(env.home.join("git-backup"), env.path(".git")).unwrap();
    std::fs::write(env.path(".git/HEAD"), "garbage\n").unwrap();
    let out = env.run(["remember", "x"]).output().code(1);
    assert!(
        out.stderr.starts_with("error: [TMP]/ws: the git repository cannot be opened"),
        "{out}"
    );
    assert!(out.stderr.contains("hint: check the repository with `git fsck`"), "{out}");
    assert!(!env.path("memory/episodes/2026-12-01.md").exists());
}

/// An I/O error prints its cause once: the message already says it, so no `caused by:` line
/// repeats it; a folder where a file was wanted is the user's mistake, with a hint.
#[test]
fn a_folder_given_as_a_file_is_a_user_error_whose_cause_is_said_once() {
    let env = TestEnv::initialized();
    std::fs::create_dir(env.path("transcripts")).unwrap();
    let out = env.run(["import", "transcripts"]).output().code(1);
    assert_eq!(
        out.stderr,
        "error: [TMP]/ws/transcripts: cannot read: Is a directory (os error 21)\n\nhint: name a file, not a folder\n"
    );
}

#[test]
fn bad_clock_override_is_reported() {
    let env = TestEnv::initialized();
    let out = env.run(["remember", "x"]).env("COGMEM_NOW", "tomorrow").output().code(1);
    assert!(
        out.stderr.starts_with("error: COGMEM_NOW=\"tomorrow\" is not an RFC 3339 time"),
        "{out}"
    );
}

#[test]
fn out_of_range_flags_are_usage_errors() {
    let env = TestEnv::initialized();
    let cases: Vec<Case<'_>> = vec![
        (
            vec!["graph", "neighbors", "person--ada", "--depth", "0"],
            None,
            2,
            "error: invalid value '0' for '--depth <N>': `0` is not a number of hops; give 1 or more",
        ),
        (
            vec!["graph", "export", "--around", "person--ada", "--depth", "0"],
            None,
            2,
            "error: invalid value '0' for '--depth <N>'",
        ),
        // `--as-of` reads what every time flag reads (`yesterday` included); what it cannot
        // read is refused naming the flag. See: issue 18
        (
            vec!["graph", "show", "person--ada", "--as-of", "2026-13-01"],
            None,
            1,
            "error: --as-of: cannot read \"2026-13-01\" as a date or time",
        ),
        (
            vec!["graph", "neighbors", "person--ada", "--as-of", "someday"],
            None,
            1,
            "error: --as-of: cannot read \"someday\" as a date or time",
        ),
        (
            vec!["context", "--threshold", "1.5"],
            None,
            2,
            "error: invalid value '1.5' for '--threshold <SHARE>': `1.5` is not a share",
        ),
        (vec!["context", "--threshold", "NaN"], None, 2, "error: invalid value 'NaN'"),
    ];
    for (args, stdin, code, starts) in cases {
        refused(&env, &args, stdin, code, starts);
    }
}

// See: issue 16
#[test]
fn issue_16_a_nul_byte_is_bad_input_naming_the_field() {
    let env = TestEnv::initialized();
    let head = env.head();
    let out = env.run(["remember", "-"]).stdin(&b"hello\0world"[..]).output().code(1);
    assert!(out.stderr.contains("the text contains a NUL byte (at byte 5)"), "{out}");
    assert!(out.stderr.contains("hint: remove the NUL bytes from the text"), "{out}");
    let out =
        env.run(["--actor", "subagent:r", "propose", "-"]).stdin(&b"a\0b"[..]).output().code(1);
    assert!(out.stderr.contains("the text contains a NUL byte"), "{out}");
    let out = env.run(["hear", "-"]).stdin(&b"remember that a\0b"[..]).output();
    assert_ne!(out.code, 70, "{out}");
    assert_eq!(env.head(), head, "nothing committed");
    env.assert_clean_tree();
}

// See: issue 16
#[test]
fn issue_16_text_over_what_stdin_may_hold_names_its_real_size() {
    let env = TestEnv::initialized();
    let big = vec![b'a'; 17 * 1024 * 1024 + 5];
    let out = env.run(["remember", "-"]).stdin(big).output().code(1);
    assert!(out.stderr.contains("the text is 17825797 bytes"), "{out}");
    assert!(out.stderr.contains("no setting allows more than 16777216 bytes"), "{out}");
}

/// Importing a folder is the user's mistake (exit 1, saying to name a file), not an internal
/// error (it was exit 70); a transcript saved with a byte-order mark imports its first line.
#[test]
fn import_of_a_folder_is_a_user_error_and_a_bom_is_read_past() {
    let env = TestEnv::initialized();
    let folder = env.home.join("chat.jsonl");
    std::fs::create_dir(&folder).unwrap();
    let head = env.head();
    let out = env.run(["import", folder.to_str().unwrap()]).output().code(1);
    assert!(out.stderr.contains("chat.jsonl"), "{out}");
    assert!(out.stderr.contains("name a file, not a folder"), "{out}");
    assert_eq!(env.head(), head);
    let line =
        r#"{"timestamp":"2026-11-30T10:00:00Z","speaker":"user","text":"Quinces ripen late"}"#;
    let out = env.run(["import", "--strict", "-"]).stdin(format!("\u{feff}{line}\n")).success();
    assert!(out.stderr.contains("1 "), "{out}");
    assert!(env.run(["search", "quinces"]).success().stdout.contains("Quinces ripen late"));
}

/// A decay file that cannot be read (a hand merge's conflict markers, a link out of the
/// workspace) is reported and skipped by every read, which goes on without its scores (exit 3,
/// a warning naming the file); a write refuses it (it would drop its entries), naming it.
/// Every read was an error before: one bad meta file silenced the whole memory.
#[test]
fn reads_go_on_without_a_decay_file_they_cannot_read() {
    let env = TestEnv::initialized();
    env.run(["remember", "the staging database is Postgres 16"]).success();
    env.run(["remember", "--store", "procedural", "--title", "Deploy", "run the migrations"])
        .success();
    let decay = "memory/meta/decay-scores.json";
    let good = env.read(decay);
    let outside = env.path("../outside.json");
    std::fs::write(&outside, &good).unwrap();
    let conflicted = format!("<<<<<<< HEAD\n{good}=======\n{good}>>>>>>> theirs\n");
    for (case, bad) in [("conflict markers", Some(conflicted)), ("a link out", None)] {
        let path = env.path(decay);
        std::fs::remove_file(&path).unwrap();
        match &bad {
            Some(text) => std::fs::write(&path, text).unwrap(),
            None => std::os::unix::fs::symlink(&outside, &path).unwrap(),
        }
        let reads: [&[&str]; 7] = [
            &["search", "Postgres"],
            &["recall", "Postgres"],
            &["context"],
            &["context", "Postgres"],
            &["show", "procedure:deploy"],
            &["reflect", "status"],
            &["search", "Postgres", "--json"],
        ];
        for args in reads {
            let out = env.run(args).output().code(3);
            let warned = out.stderr.lines().any(|l| {
                l.starts_with("warning: skipped ") && l.contains("memory/meta/decay-scores.json")
            });
            assert!(warned, "{case}: {args:?}:\n{out}");
        }
        let out = env.run(["search", "Postgres"]).output();
        assert!(out.stdout.contains("the staging database is Postgres 16"), "{case}:\n{out}");
        let out = env.run(["context", "--json"]).output();
        let pack: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(pack["skipped"][0]["path"], decay, "{case}: {pack}");
        assert!(pack["text"].as_str().unwrap().contains("Postgres 16"), "{case}: {pack}");
        let head = env.head();
        let out = env.run(["remember", "the cache is Redis"]).output();
        assert_ne!(out.code, 0, "{case}: a write refuses:\n{out}");
        assert!(out.stderr.contains("decay-scores.json"), "{case}:\n{out}");
        assert_eq!(env.head(), head, "{case}");
        std::fs::remove_file(&path).unwrap();
        env.git(&["checkout", "--", decay]);
        env.run(["search", "Postgres"]).success();
    }
    env.assert_clean_tree();
}
