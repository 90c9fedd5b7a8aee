//! `cogmem hook <host>` driven with the JSON each host sends (recorded samples per event in
//! tests/fixtures/hooks/), and `import --format` with the hosts' transcript files
//! (tests/fixtures/transcripts/): what the agent would see on stdout, and what was committed.
//! See: issue 17

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::{Output, TestEnv, wait_until};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

/// A fixture with `{{CWD}}` and `{{TRANSCRIPT}}` filled in.
fn fixture(rel: &str, cwd: &Path, transcript: &Path) -> String {
    std::fs::read_to_string(Path::new(FIXTURES).join(rel))
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
        .replace("{{CWD}}", &cwd.display().to_string())
        .replace("{{TRANSCRIPT}}", &transcript.display().to_string())
}

/// Copies a host transcript fixture next to the workspace, where the host would keep it.
fn transcript(env: &TestEnv, name: &str) -> PathBuf {
    let path = env.home.join(name);
    std::fs::write(&path, fixture(&format!("transcripts/{name}"), &env.root, &path)).unwrap();
    path
}

/// Runs `cogmem hook HOST` with a recorded event, from the home folder (not the workspace), so
/// that the workspace comes from the event's `cwd`.
fn hook(env: &TestEnv, host: &str, event: &str, transcript: &Path) -> Output {
    let json = fixture(&format!("hooks/{host}/{event}.json"), &env.root, transcript);
    env.run(["hook", host]).current_dir_home().stdin(json).output()
}

/// The context a Claude Code or Codex answer adds, checking the answer's shape.
#[track_caller]
fn added_context(out: &Output, event: &str) -> String {
    assert_eq!(out.code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("stdout is JSON");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], event, "{out}");
    v["hookSpecificOutput"]["additionalContext"].as_str().expect("additionalContext").to_owned()
}

fn seeded() -> TestEnv {
    let env = TestEnv::initialized();
    env.run(["remember", "--store", "core", "--section", "identity", "The user is Dana, an SRE"])
        .success();
    env.run(["remember", "We are moving Atlas from MySQL to Postgres 16; Dana owns it"]).success();
    env
}

#[test]
fn claude_code_session_start_gives_the_pack_with_the_latest_reward() {
    let env = seeded();
    env.write(
        "memory/meta/reward-log.md",
        "# Reward Log\n\n## 2026-11-30\n**Result:** +2K reward\n**Reason:** the Atlas plan was right\n",
    );
    env.git_commit_all("reward by hand");
    let head = env.head();
    let none = env.home.join("none.jsonl");
    let text = added_context(&hook(&env, "claude-code", "SessionStart", &none), "SessionStart");
    assert!(text.contains("- The user is Dana, an SRE"), "{text}");
    assert!(text.contains("(2026-12-01) We are moving Atlas from MySQL to Postgres 16"), "{text}");
    assert!(
        text.contains(
            "## Recent reward outcomes\n- 2026-11-30: +2K reward — the Atlas plan was right\n"
        ),
        "{text}"
    );
    assert!(cogmem::tokens::estimate(&text) <= 2000, "{text}");
    assert_eq!(env.head(), head, "a session start commits nothing");
    env.assert_clean_tree();
}

#[test]
fn claude_code_session_start_stays_within_its_configured_budget() {
    let env = seeded();
    env.import_messages(200);
    env.write("cogmem.toml", "[hooks]\nsession_start_tokens = 120\n");
    env.git_commit_all("smaller hook budget");
    let none = env.home.join("none.jsonl");
    let text = added_context(&hook(&env, "claude-code", "SessionStart", &none), "SessionStart");
    assert!(cogmem::tokens::estimate(&text) <= 120, "{} tokens:\n{text}", text.len());
    assert!(text.contains("- The user is Dana, an SRE"), "{text}");
}

#[test]
fn claude_code_remember_prompt_is_written_by_trigger_remember_and_reported() {
    let env = seeded();
    let (before, lines) = (env.commit_count(), env.audit_lines().len());
    let none = env.home.join("none.jsonl");
    let out = hook(&env, "claude-code", "UserPromptSubmit-remember", &none);
    env.assert_one_change(before, lines, &out);
    let text = added_context(&out, "UserPromptSubmit");
    assert!(
        text.starts_with("cogmem remembered what the user asked it to: \"the Atlas replica"),
        "{text}"
    );
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "bot:trigger-remember");
    let diff = env.git(&["show", "HEAD"]);
    assert!(diff.contains("+- the Atlas replica moves to Frankfurt in January."), "{diff}");
}

/// A recall's memories are given even when their uses cannot be recorded (the access log a
/// folder here): the failure is a notice on the host's log. It cut the whole answer.
/// See: docs/decisions.md 2026-12-06, eleventh stop
#[test]
fn a_recall_whose_uses_cannot_be_recorded_still_gives_its_memories() {
    let env = seeded();
    let log = env.path(".cogmem/access.log");
    if log.exists() {
        std::fs::remove_file(&log).unwrap();
    }
    std::fs::create_dir(&log).unwrap();
    let json = serde_json::json!({
        "hook_event_name": "UserPromptSubmit",
        "cwd": env.root,
        "prompt": "What do you remember about Atlas?",
    });
    let out = env.run(["hook", "claude-code"]).current_dir_home().stdin(json.to_string()).output();
    let text = added_context(&out, "UserPromptSubmit");
    assert!(text.contains("We are moving Atlas from MySQL to Postgres 16"), "{text}");
    assert!(
        out.stderr.starts_with(
            "cogmem hook claude-code: the uses of the memories shown were not recorded: "
        ),
        "{out}"
    );
    assert!(out.stderr.contains(".cogmem/access.log"), "{out}");
}

/// A session whose pack cannot be built (a relations file that is not UTF-8) is given the
/// core memory, read from MEMORY.md, after a notice of what could not be read and how to fix
/// it; the host's log says it too. It was given nothing.
/// See: docs/decisions.md 2026-12-06, eleventh stop
#[test]
fn a_session_start_without_its_pack_gets_core_memory_and_a_notice() {
    let env = seeded();
    std::fs::write(env.path("memory/graph/relations.md"), b"\xff\xfe broken\n").unwrap();
    let none = env.home.join("none.jsonl");
    let out = hook(&env, "claude-code", "SessionStart", &none);
    let text = added_context(&out, "SessionStart");
    let why = "[TMP]/ws/memory/graph/relations.md: not valid UTF-8 at byte 0 (hint: re-save \
               the file as UTF-8, or remove it (a file git has is restored by `git checkout -- \
               FILE` instead))";
    assert_eq!(
        text,
        format!(
            "cogmem could not read all of its memory for this session; tell the user, so that \
             they can fix it:\n- {why}\n\n# Memory (core memory only)\n\n## Core memory\n- The \
             user is Dana, an SRE\n"
        )
    );
    assert_eq!(out.stderr, format!("cogmem hook claude-code: {why}\n"));
}

#[test]
fn claude_code_question_gets_relevant_memories_with_ids_and_dates_and_commits_nothing() {
    let env = seeded();
    let head = env.head();
    let none = env.home.join("none.jsonl");
    let out = hook(&env, "claude-code", "UserPromptSubmit-question", &none);
    let text = added_context(&out, "UserPromptSubmit");
    assert!(text.starts_with("# Memory (cogmem)\n\n## Relevant memories\n"), "{text}");
    let line = text.lines().find(|l| l.contains("We are moving Atlas")).expect("the memory");
    assert!(line.starts_with("- [episode:2026-12-01:09:00"), "{line}");
    assert!(
        line.contains("] (2026-12-01) We are moving Atlas from MySQL to Postgres 16"),
        "{line}"
    );
    assert!(!text.contains("The user is Dana"), "core memory came with the session: {text}");
    let ids: Vec<&str> =
        text.lines().filter_map(|l| l.strip_prefix("- [")?.split(']').next()).collect();
    let mut unique = ids.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(ids.len(), unique.len(), "each memory once: {ids:?}");
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

#[test]
fn claude_code_prompt_memories_stay_within_prompt_tokens() {
    let env = seeded();
    env.import_messages(60);
    env.write("cogmem.toml", "[hooks]\nprompt_tokens = 50\n");
    env.git_commit_all("small prompt budget");
    let out =
        prompt_hook(&env, "what was the note about topic12 and topic13 and topic14 and topic15?");
    let text = added_context(&out, "UserPromptSubmit");
    assert!(text.contains("note number 1"), "{text}");
    assert!(cogmem::tokens::estimate(&text) <= 50, "{text}");
}

/// A pasted document is not a request, even when one of its lines starts with "remember".
/// Half of a surrogate pair in the prompt (a cut emoji, which JavaScript hosts write as a lone
/// `\ud83d` escape) costs that character, not the whole event: it was "stdin is not the host's
/// hook JSON" and no context at all. An import line with one imports too.
#[test]
fn a_lone_surrogate_in_the_prompt_is_one_character_lost() {
    let env = seeded();
    let root = serde_json::to_string(&env.root).unwrap();
    let json = format!(
        r#"{{"hook_event_name":"UserPromptSubmit","cwd":{root},"prompt":"How is Atlas and Postgres going? \ud83d"}}"#
    );
    let out = env.run(["hook", "claude-code"]).current_dir_home().stdin(json).output();
    let text = added_context(&out, "UserPromptSubmit");
    assert!(text.contains("Postgres 16"), "{text}");
    assert!(!out.stderr.contains("not the host's hook JSON"), "{out}");
    let line = r#"{"timestamp":"2026-11-20T10:00:00Z","speaker":"Ann","text":"cut emoji \ud83d here","id":"m1"}"#;
    env.write("../cut.jsonl", &format!("{line}\n"));
    env.run(["import", "--format", "jsonl", "../cut.jsonl"]).success();
    assert!(env.read("memory/episodes/2026-11-20.md").contains("cut emoji \u{FFFD} here"));
}

/// An event over the hook's 16 MiB is refused in its own words (it spoke of splitting a
/// transcript and `limits.import_bytes`), with exit 0 and nothing done.
#[test]
fn an_event_over_the_limit_is_refused_as_an_event() {
    let env = seeded();
    let head = env.head();
    let out =
        env.run(["hook", "claude-code"]).current_dir_home().stdin(vec![b' '; 17 << 20]).output();
    assert_eq!(out.code, 0, "{out}");
    assert!(out.stdout.is_empty(), "{out}");
    assert!(out.stderr.contains("the hook event on stdin is over 16777216 bytes"), "{out}");
    assert!(!out.stderr.contains("import"), "{out}");
    // Events that are no object, name no event or carry no prompt text are notices too.
    let root = serde_json::to_string(&env.root).unwrap();
    for (stdin, notice) in [
        ("[1,2]".to_owned(), "not a JSON object"),
        (format!(r#"{{"cwd":{root}}}"#), "no `hook_event_name` text"),
        (
            format!(r#"{{"hook_event_name":"UserPromptSubmit","cwd":{root},"prompt":42}}"#),
            "the UserPromptSubmit event has no `prompt` text",
        ),
    ] {
        let out = env.run(["hook", "claude-code"]).current_dir_home().stdin(stdin).output();
        assert_eq!(out.code, 0, "{out}");
        assert!(out.stdout.is_empty() && out.stderr.contains(notice), "{notice}: {out}");
    }
    assert_eq!(env.head(), head);
}

#[test]
fn a_long_pasted_prompt_is_searched_but_not_heard() {
    let env = seeded();
    let head = env.head();
    let mut prompt = "Please review this draft about Atlas and Postgres:\n".to_owned();
    while prompt.len() < 2_500 {
        prompt.push_str(
            "The migration plan moves every table, and we will\nremember that the replica stays.\n",
        );
    }
    let json = serde_json::json!({
        "session_id": "s", "transcript_path": "/nowhere.jsonl", "cwd": env.root,
        "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": prompt
    });
    let out = env.run(["hook", "claude-code"]).current_dir_home().stdin(json.to_string()).output();
    let text = added_context(&out, "UserPromptSubmit");
    assert!(text.starts_with("# Memory (cogmem)"), "{text}");
    assert!(text.contains("Postgres 16"), "{text}");
    assert_eq!(env.head(), head, "nothing remembered");
    // The same request on its own is heard.
    let json = serde_json::json!({
        "hook_event_name": "UserPromptSubmit", "cwd": env.root,
        "prompt": "remember that the replica stays."
    });
    let out = env.run(["hook", "claude-code"]).current_dir_home().stdin(json.to_string()).output();
    assert!(added_context(&out, "UserPromptSubmit").starts_with("cogmem remembered"), "{out}");
}

#[test]
fn claude_code_forget_prompt_lists_candidates_and_forgets_nothing() {
    let env = TestEnv::initialized();
    env.run(["remember", "Dana prefers green tea"]).success();
    let head = env.head();
    let none = env.home.join("none.jsonl");
    let text = added_context(
        &hook(&env, "claude-code", "UserPromptSubmit-forget", &none),
        "UserPromptSubmit",
    );
    assert!(
        text.starts_with("The user asked to forget something. Nothing is forgotten yet"),
        "{text}"
    );
    assert!(text.contains("- [episode:2026-12-01:09:00] Dana prefers green tea"), "{text}");
    assert_eq!(env.head(), head);
}

/// A person named by COGMEM_ACTOR in the host's environment is not the hook's author: the
/// import commits as the hook's own actor. See: docs/decisions.md 2026-12-06, eleventh stop
#[test]
fn a_hook_leaves_out_a_person_named_by_cogmem_actor() {
    let env = TestEnv::initialized();
    let path = transcript(&env, "claude-code.jsonl");
    let json = fixture("hooks/claude-code/PreCompact.json", &env.root, &path);
    let (before, lines) = (env.commit_count(), env.audit_lines().len());
    let out = env.run(["hook", "claude-code"]).current_dir_home().env("COGMEM_ACTOR", "user:alice");
    let out = out.stdin(json).output();
    env.assert_one_change(before, lines, &out);
    assert!(out.stderr.starts_with("warning: COGMEM_ACTOR=user:alice is ignored"), "{out}");
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "bot:hook-claude-code");
}

#[test]
fn claude_code_pre_compact_and_session_end_import_the_transcript_once() {
    let env = TestEnv::initialized();
    let path = transcript(&env, "claude-code.jsonl");
    let (before, lines) = (env.commit_count(), env.audit_lines().len());
    let out = hook(&env, "claude-code", "PreCompact", &path);
    assert_eq!(out.stderr, "", "{out}");
    env.assert_one_change(before, lines, &out);
    assert_eq!(out.stdout, "", "nothing for the agent to see");
    let day = env.read("memory/episodes/2026-11-30.md");
    for want in [
        "## 14:02 | event | confidence:high | tags:[transcript, claude-code]\n**user:** We are moving the Atlas API from MySQL to Postgres 16",
        "**assistant:** I'll search the repository for MySQL-specific syntax.",
        "**assistant:** One query needs changing",
        "**user:** Good. Dana owns the migration",
        "<!-- source: claude-code:3e9b1c7a-6d2f-4a8e-b1c3-5f7d9e0a2b4c -->",
    ] {
        assert!(day.contains(want), "missing {want:?} in:\n{day}");
    }
    for never in [
        "grep for backticks",
        "AWS_SECRET",
        "LIMIT 10, 20\nconfig",
        "Sub-agent",
        "init is analyzing",
        "Set model to",
        "command-name",
        "stop_hook",
    ] {
        assert!(!day.contains(never), "{never:?} was imported:\n{day}");
    }
    assert_eq!(day.matches("**user:**").count() + day.matches("**assistant:**").count(), 5);
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "test-agent");

    // The session goes on, then ends: only the new message is added, by the hook's own actor.
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(r#"{"parentUuid":"6c0e4a2b-8d3f-4b5c-e7a8-3c4d8b0e2f5a","isSidechain":false,"type":"user","message":{"role":"user","content":"Thanks, that is all for today."},"uuid":"b7e1f3a5-9c2d-4e6f-8a0b-1c3d5e7f9a2b","timestamp":"2026-11-30T14:05:40.003Z"}"#);
    text.push('\n');
    std::fs::write(&path, text).unwrap();
    let (before, lines) = (env.commit_count(), env.audit_lines().len());
    let json = fixture("hooks/claude-code/SessionEnd.json", &env.root, &path);
    let out = env
        .run(["hook", "claude-code"])
        .current_dir_home()
        .env_remove("COGMEM_ACTOR")
        .stdin(json)
        .output();
    // In a process of its own, which Claude Code's exit does not cut short.
    wait_for_detached_import(&env, before);
    env.assert_one_change(before, lines, &out);
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "bot:hook-claude-code");
    let day = env.read("memory/episodes/2026-11-30.md");
    assert_eq!(day.matches("**user:**").count() + day.matches("**assistant:**").count(), 6);

    // Once more, named from the home folder as the hooks reference writes it: nothing new,
    // nothing committed, no notice.
    let head = env.head();
    let out = hook(&env, "claude-code", "SessionEnd", Path::new("~/claude-code.jsonl"));
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "", ""), "{out}");
    wait_for_lock(&env);
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

#[test]
fn reflection_input_leaves_transcript_entries_out() {
    let env = TestEnv::initialized();
    env.run(["remember", "Bob talked about the garden"]).success();
    let path = transcript(&env, "claude-code.jsonl");
    // Dated today, so that the reflection reads that day.
    let today = std::fs::read_to_string(&path).unwrap().replace("2026-11-30T", "2026-12-01T");
    std::fs::write(&path, today).unwrap();
    let before = env.commit_count();
    hook(&env, "claude-code", "SessionEnd", &path).success();
    wait_for_detached_import(&env, before);
    assert!(env.read("memory/episodes/2026-12-01.md").contains("**user:** Good. Dana owns"));
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
    let out = env.run(["reflect", "input", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let text = v["text"].as_str().unwrap();
    assert!(text.contains("Bob talked about the garden"), "{text}");
    assert!(!text.contains("Dana owns") && !text.contains("**assistant:**"), "{text}");
    let cut = v["cut"].to_string();
    assert!(
        cut.contains("5 transcript entries (tag `transcript`) are not reflection input"),
        "{cut}"
    );
}

#[test]
fn a_hook_never_blocks_its_host() {
    let env = TestEnv::initialized();
    let none = env.home.join("none.jsonl");
    // No workspace at or above the hook's folder: a notice, exit 0, nothing on stdout.
    let json =
        r#"{"hook_event_name":"UserPromptSubmit","cwd":"/","prompt":"remember that x is y"}"#;
    let out = env.run(["hook", "claude-code"]).current_dir_home().stdin(json).output();
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out}");
    assert!(
        out.stderr.starts_with("cogmem hook claude-code: no cogmem workspace at or above /:"),
        "{out}"
    );
    // Not JSON, a broken settings file, a transcript that is not there: the same.
    let out = env.run(["hook", "claude-code"]).current_dir_home().stdin("not json").output();
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out}");
    assert!(out.stderr.contains("stdin is not the host's hook JSON"), "{out}");
    let out = hook(&env, "claude-code", "PreCompact", &none);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out}");
    assert!(out.stderr.contains("none.jsonl"), "the notice names the file: {out}");
    env.write("cogmem.toml", "[hooks]\nprompt_tokens = \"many\"\n");
    let out = hook(&env, "claude-code", "UserPromptSubmit-question", &none);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out}");
    assert!(out.stderr.contains("cogmem.toml:2:"), "{out}");
    // An event cogmem does not handle: nothing at all.
    let out = hook(&env, "claude-code", "PreToolUse", &none);
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "", ""), "{out}");
}

/// A hook whose own command line does not parse (a host name spelled wrong, a flag an older
/// cogmem does not know) exits 1 with clap's message: Claude Code and Codex read exit 2 as
/// "block this prompt". Elsewhere a usage error is still exit 2.
#[test]
fn a_hook_command_line_that_does_not_parse_exits_1_not_2() {
    let env = TestEnv::initialized();
    let ws = env.root.to_str().unwrap();
    let cases: [&[&str]; 5] = [
        &["hook", "claude"],
        &["hook", "claude-code", "--bogus"],
        &["hook"],
        &["--workspace", ws, "hook", "codex", "extra"],
        &["--color", "never", "-q", "hook", "cursour"],
    ];
    for args in cases {
        let out = env.run(args).current_dir_home().stdin("{}").output();
        assert_eq!((out.code, out.stdout.as_str()), (1, ""), "{args:?}: {out}");
        assert!(out.stderr.starts_with("error: "), "{args:?}: {out}");
    }
    let out = env.run(["hook", "claude"]).current_dir_home().stdin("{}").output();
    assert!(out.stderr.contains("a similar value exists: 'claude-code'"), "{out}");
    // `hook` as a value is not the hook command; other commands' usage errors stay 2.
    env.run(["--workspace", "hook", "status", "--bogus"]).output().code(2);
    env.run(["remember", "--bogus", "x"]).output().code(2);
    let out = env.run(["hook", "--help"]).output().success();
    assert!(out.stdout.contains("Usage: cogmem hook"), "{out}");
}

#[test]
fn cogmem_workspace_wins_over_the_hooks_folder() {
    let env = seeded();
    let json = r#"{"hook_event_name":"SessionStart","source":"resume","cwd":"/"}"#;
    let out = env
        .run(["hook", "claude-code"])
        .current_dir_home()
        .env("COGMEM_WORKSPACE", &env.root)
        .stdin(json)
        .output();
    assert!(added_context(&out, "SessionStart").contains("The user is Dana"), "{out}");
}

#[test]
fn codex_hooks_answer_in_codex_format_and_stop_imports_the_rollout() {
    let env = seeded();
    let path = transcript(&env, "codex-rollout.jsonl");
    let text = added_context(&hook(&env, "codex", "SessionStart", &path), "SessionStart");
    assert!(text.contains("The user is Dana"), "{text}");
    let out = hook(&env, "codex", "UserPromptSubmit", &path);
    let text = added_context(&out, "UserPromptSubmit");
    assert!(text.starts_with("cogmem remembered"), "{text}");
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "bot:trigger-remember");
    let (before, lines) = (env.commit_count(), env.audit_lines().len());
    let out = hook(&env, "codex", "Stop", &path);
    env.assert_one_change(before, lines, &out);
    assert_eq!(out.stdout, "{}\n", "Codex reads JSON from every hook");
    let day = env.read("memory/episodes/2026-11-30.md");
    assert_eq!(day.matches("**user:** The nightly export job for Atlas fails").count(), 1, "{day}");
    assert_eq!(day.matches("**assistant:** The export fails because /exports").count(), 1, "{day}");
    assert!(day.contains("tags:[transcript, codex]"), "{day}");
    assert!(day.contains("<!-- source: codex:019ad2c4-7e3b-7f21-9a6c-4b8d2e0f1a3c:5 -->"), "{day}");
    for never in ["environment_context", "ghp_", "cron logs", "tail -n"] {
        assert!(!day.contains(never), "{never:?} was imported:\n{day}");
    }
    let head = env.head();
    hook(&env, "codex", "PreCompact", &path).success();
    assert_eq!(env.head(), head, "already imported");
}

/// Waits for the import a Codex `SessionEnd` handed to a process of its own: its commit, then
/// the workspace lock, which that process holds until it is done, and the index update.
fn wait_for_detached_import(env: &TestEnv, before: usize) {
    let committed = wait_until(Duration::from_secs(60), || env.commit_count() > before);
    assert!(committed, "the SessionEnd import made no commit:\n{}", env.git(&["log", "--oneline"]));
    wait_for_lock(env);
    env.wait_for_index();
}

/// Waits until no process holds the workspace's lock (a detached import that commits nothing
/// has finished once it let the lock go).
fn wait_for_lock(env: &TestEnv) {
    if let Ok(lock) = std::fs::File::open(env.path(".cogmem/lock")) {
        let _ = lock.lock();
    }
}

/// Codex's SessionEnd (newer versions; at most 3 s) imports the rollout as Stop does, in a
/// process of its own, and is answered with nothing: the event has no output schema.
#[test]
fn codex_session_end_imports_the_rollout_and_answers_nothing() {
    let env = seeded();
    let path = transcript(&env, "codex-rollout.jsonl");
    let (before, lines) = (env.commit_count(), env.audit_lines().len());
    let out = hook(&env, "codex", "SessionEnd", &path);
    wait_for_detached_import(&env, before);
    env.assert_one_change(before, lines, &out);
    // The process it started imports as the hook would: as COGMEM_ACTOR here.
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "test-agent");
    assert_eq!(out.stdout, "", "{out}");
    let day = env.read("memory/episodes/2026-11-30.md");
    assert_eq!(day.matches("**user:** The nightly export job for Atlas fails").count(), 1, "{day}");
    let head = env.head();
    hook(&env, "codex", "Stop", &path).success();
    assert_eq!(env.head(), head, "already imported");
}

/// Codex kills a `SessionEnd` hook after 3 s, and a change killed half-way is undone by the
/// next command: an import cut there was lost, with no later event of the session to import
/// it again. The hook hands the import to a process the host's kill does not reach, so killing
/// the hook itself mid-write (a crash point, the same SIGKILL, in the process the host runs)
/// loses nothing.
#[test]
fn codex_session_end_import_outlives_the_hosts_kill() {
    session_end_import_outlives_a_kill(
        &seeded(),
        "codex",
        "codex-rollout.jsonl",
        "**user:** The nightly export job for Atlas fails",
    );
}

/// Codex's `SessionEnd` hook hands the import off before it opens the workspace: a change a
/// killed process left is undone by the import's own process (its notice in the import log),
/// not in the 3 s Codex gives the hook. It was undone by the hook first.
/// See: docs/decisions.md 2026-12-06, eleventh stop
#[test]
fn codex_session_end_hands_off_before_opening_the_workspace() {
    let env = seeded();
    let killed = env
        .run(["remember", "The standup moves to 10:00"])
        .env("COGMEM_CRASH_AT", "mid-write")
        .output();
    assert_ne!(killed.code, 0, "{killed}");
    let path = transcript(&env, "codex-rollout.jsonl");
    let before = env.commit_count();
    let out = hook(&env, "codex", "SessionEnd", &path);
    assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "", ""), "{out}");
    wait_for_detached_import(&env, before);
    let log = env.read(".cogmem/hook-import.log");
    assert!(log.contains("a change that was killed half-way was undone"), "{log}");
    let day = env.read("memory/episodes/2026-11-30.md");
    assert!(day.contains("**user:** The nightly export job for Atlas fails"), "{day}");
    env.assert_clean_tree();
}

/// Claude Code often exits without waiting for its `SessionEnd` hooks ("Hook cancelled"): as
/// Codex's, the import runs in a process of its own, so the hook killed mid-write loses
/// nothing (before, the import died with it and the next command rolled it back).
#[test]
fn claude_code_session_end_import_outlives_the_hosts_exit() {
    session_end_import_outlives_a_kill(
        &TestEnv::initialized(),
        "claude-code",
        "claude-code.jsonl",
        "**user:** Good. Dana owns the migration",
    );
}

/// `host`'s `SessionEnd` hook, SIGKILLed mid-write (a crash point), still imports `name`
/// (once: `said` is in the day once) in the process it started, and leaves no half-done change.
fn session_end_import_outlives_a_kill(env: &TestEnv, host: &str, name: &str, said: &str) {
    let path = transcript(env, name);
    let (before, lines) = (env.commit_count(), env.audit_lines().len());
    let json = fixture(&format!("hooks/{host}/SessionEnd.json"), &env.root, &path);
    let out = env
        .run(["hook", host])
        .current_dir_home()
        .env("COGMEM_CRASH_AT", "mid-write")
        .stdin(json)
        .output();
    wait_for_detached_import(env, before);
    env.assert_one_change(before, lines, &out);
    assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{out}");
    let day = env.read("memory/episodes/2026-11-30.md");
    assert_eq!(day.matches(said).count(), 1, "{day}");
    let out = env.run(["status"]).success();
    assert!(!out.stderr.contains("killed half-way"), "{out}");
}

/// A `transcript_path` that is a FIFO is refused with a notice naming it, without waiting for
/// a writer (reading it would block the hook until the host kills it).
#[test]
fn a_transcript_path_that_is_not_a_regular_file_is_refused_without_reading_it() {
    let env = seeded();
    let fifo = env.home.join("session.jsonl");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // A writer that lets a reader that opened the FIFO go (at end of file): without it, a hook
    // that reads the FIFO would wait for ever instead of failing this test.
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || drop(std::fs::OpenOptions::new().write(true).open(fifo)))
    };
    let head = env.head();
    for host in ["claude-code", "codex"] {
        let out = hook(&env, host, "SessionEnd", &fifo).success();
        let want = format!("cogmem hook {host}: [TMP]/session.jsonl: cannot read: it is a FIFO");
        assert!(out.stderr.contains(&want), "{out}");
    }
    assert_eq!(env.head(), head);
    let folder = env.home.join("a-folder");
    std::fs::create_dir(&folder).unwrap();
    let out = hook(&env, "claude-code", "PreCompact", &folder).success();
    assert!(out.stderr.contains("[TMP]/a-folder: cannot read: it is a folder"), "{out}");
    if !writer.is_finished() {
        drop(std::fs::File::open(&fifo)); // the writer waits for a reader: let it go
    }
    writer.join().unwrap();
}

#[test]
fn cursor_session_start_adds_context_and_before_submit_prompt_goes_on() {
    let env = seeded();
    let none = env.home.join("none.jsonl");
    let out = hook(&env, "cursor", "sessionStart", &none).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(v["additional_context"].as_str().unwrap().contains("The user is Dana"), "{out}");
    let (before, lines) = (env.commit_count(), env.audit_lines().len());
    let out = hook(&env, "cursor", "beforeSubmitPrompt", &none);
    env.assert_one_change(before, lines, &out);
    assert_eq!(out.stdout, "{\"continue\":true}\n");
    let diff = env.git(&["show", "HEAD"]);
    assert!(diff.contains("staging deploys need Priya's approval"), "{diff}");
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "bot:trigger-remember");
}

/// Cursor's prompt hook cannot add context: no memory is looked for, and a recall, showing
/// nothing, records nothing.
#[cfg(feature = "timings")] // reads the timing marks
#[test]
fn a_cursor_prompt_looks_for_no_memories() {
    let env = seeded();
    // Where recalls count as interactions, a recall that shows nothing still counts none.
    env.write("cogmem.toml", "[decay]\nclock = \"interactions\"\n");
    env.git_commit_all("the interactions clock");
    let json = serde_json::json!({
        "hook_event_name": "beforeSubmitPrompt", "workspace_roots": [env.root],
        "prompt": "What did we decide about Atlas?", "conversation_id": "c",
    });
    let out = timed_hook(&env, "cursor", &json);
    assert_eq!(out.stdout, "{\"continue\":true}\n", "{out}");
    assert!(out.stderr.contains("hear: classified"), "{out}");
    assert!(!out.stderr.contains("memories packed") && !out.stderr.contains("query run"), "{out}");
    assert!(!env.path(".cogmem/access.log").exists(), "nothing shown, nothing recalled");
    // The same prompt from Claude Code is answered with the memories.
    let out = prompt_hook(&env, "What did we decide about Atlas?");
    assert!(added_context(&out, "UserPromptSubmit").contains("Postgres 16"), "{out}");
}

#[test]
fn openclaw_has_no_command_hooks_and_says_what_to_use() {
    let env = TestEnv::initialized();
    let out = env.run(["hook", "openclaw"]).stdin("{}").output();
    assert_eq!((out.code, out.stdout.as_str()), (0, "{}\n"), "{out}");
    assert!(out.stderr.contains("cogmem mcp"), "{out}");
}

#[test]
fn import_format_reads_host_transcripts_and_skips_nothing_twice() {
    let env = TestEnv::initialized();
    let cc = transcript(&env, "claude-code.jsonl");
    let cx = transcript(&env, "codex-rollout.jsonl");
    let out = env.mutate(["--json", "import", "--format", "claude-code", cc.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((v["imported"].as_u64(), v["skipped"].as_array().map(Vec::len)), (Some(5), Some(0)));
    let out = env.mutate(["--json", "import", "--format", "codex", cx.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["imported"].as_u64(), Some(2), "{out}");
    let head = env.head();
    let out = env.run(["--json", "import", "--format", "codex", cx.to_str().unwrap()]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((v["imported"].as_u64(), v["duplicates"].as_u64()), (Some(0), Some(2)), "{out}");
    assert_eq!(env.head(), head);
    // The same file read as cogmem's own JSONL is not a transcript of messages.
    let out = env.run(["import", "--format", "jsonl", cc.to_str().unwrap()]).output();
    assert_ne!(out.code, 0, "{out}");
}

#[test]
fn a_credential_the_user_typed_is_skipped_by_the_hook_and_refused_by_import() {
    let env = TestEnv::initialized();
    let path = env.home.join("s.jsonl");
    let line = |uuid: &str, text: &str| {
        format!(
            "{{\"type\":\"user\",\"uuid\":\"{uuid}\",\"timestamp\":\"2026-11-30T10:00:00Z\",\"message\":{{\"role\":\"user\",\"content\":{}}}}}\n",
            serde_json::Value::from(text)
        )
    };
    let text = line("u1", "my token is ghp_4bR7cT9dW2eX5fY8gZ1hA3iB6jC0kD4lE7mF keep it")
        + &line("u2", "The deploy window is Tuesday at 10");
    std::fs::write(&path, text).unwrap();
    let out = env.run(["import", "--format", "claude-code", path.to_str().unwrap()]).output();
    assert_eq!(out.code, 4, "{out}");
    assert!(out.stderr.contains("line 1"), "{out}");
    // PreCompact imports in the hook's own process, whose notice the host shows.
    let out = hook(&env, "claude-code", "PreCompact", &path).success();
    assert!(out.stderr.contains("s.jsonl:1: looks like a credential"), "{out}");
    let day = env.read("memory/episodes/2026-11-30.md");
    assert!(day.contains("deploy window is Tuesday") && !day.contains("ghp_"), "{day}");
    // SessionEnd imports in a process of its own, after the host has gone: its notices go to
    // `.cogmem/hook-import.log` (they went nowhere).
    let more = line("u3", "my other token is ghp_9zR7cT9dW2eX5fY8gZ1hA3iB6jC0kD4lE7mQ ok")
        + &line("u4", "The rollback window is Wednesday at 9");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&more);
    std::fs::write(&path, text).unwrap();
    let before = env.commit_count();
    let out = hook(&env, "claude-code", "SessionEnd", &path).success();
    assert_eq!(out.stderr, "", "{out}");
    wait_for_detached_import(&env, before);
    let log = env.read(".cogmem/hook-import.log");
    assert!(log.contains("cogmem hook claude-code: importing "), "{log}");
    assert!(log.contains("s.jsonl:3: looks like a credential") && !log.contains("ghp_"), "{log}");
    let day = env.read("memory/episodes/2026-11-30.md");
    assert!(day.contains("rollback window is Wednesday") && !day.contains("ghp_"), "{day}");
}

/// A request to remember that `hear` refuses (a credential in it) still gets its answer: what
/// was refused first, without the credential, then the memories that match; nothing written.
#[test]
fn a_refused_prompt_still_answers_with_the_refusal_and_the_memories() {
    let env = TestEnv::initialized();
    env.run(["remember", "Our AWS account is run by Dana from the platform team"]).success();
    let (head, lines) = (env.head(), env.audit_lines().len());
    let out = prompt_hook(&env, "Remember that our AWS key is AKIAIOSFODNN7EXAMPLE");
    let text = added_context(&out, "UserPromptSubmit");
    assert!(
        text.starts_with(
            "cogmem refused the user's message: the text to remember looks like a secret \
             (aws-access-key-id at line 1, column 16: AKIA… (20 chars)); nothing was written. \
             Tell the user it was not remembered"
        ),
        "{text}"
    );
    assert!(text.contains("\n# Memory (cogmem)\n\n## Relevant memories\n"), "{text}");
    assert!(text.contains("Our AWS account is run by Dana"), "{text}");
    assert!(!out.stdout.contains("AKIAIOSFODNN7EXAMPLE"), "{out}");
    assert!(!out.stderr.contains("AKIAIOSFODNN7EXAMPLE"), "{out}");
    assert!(out.stderr.contains("looks like a secret"), "the host's log has it too: {out}");
    assert_eq!((env.head(), env.audit_lines().len()), (head, lines), "nothing is written");
    env.assert_clean_tree();
}

/// The memories come with a prompt's answer, they are not what it depends on: a lookup that
/// fails (the search index's lock held past `lock.timeout_ms`, as by `reindex --full` or an
/// import's index update) leaves them out and says so, and the user's "remember that …" is
/// still written and reported. It was lost with them: empty stdout, nothing written.
#[test]
fn a_prompt_whose_memories_cannot_be_looked_up_is_still_heard() {
    let env = seeded();
    env.write("cogmem.toml", &format!("{}\n[lock]\ntimeout_ms = 100\n", env.read("cogmem.toml")));
    env.git_commit_all("short lock wait");
    env.wait_for_index();
    let (before, lines) = (env.commit_count(), env.audit_lines().len());
    let path = env.path(".cogmem/index.lock");
    let lock = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path);
    let lock = lock.unwrap();
    lock.lock().unwrap();
    let out = prompt_hook(&env, "Remember that the staging db moves to Oslo in March.");
    drop(lock);
    env.wait_for_index();
    env.assert_one_change(before, lines, &out);
    let text = added_context(&out, "UserPromptSubmit");
    assert!(
        text.starts_with(
            "cogmem remembered what the user asked it to: \"the staging db moves to Oslo in \
             March.\""
        ),
        "{text}"
    );
    assert!(
        text.contains("\ncogmem could not look up the memories that match the user's message: "),
        "{text}"
    );
    assert!(text.contains("index.lock is busy"), "{text}");
    assert!(!text.contains("# Memory (cogmem)"), "{text}");
    assert!(out.stderr.contains("index.lock is busy"), "the host's log has it too: {out}");
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "bot:trigger-remember");
    env.assert_clean_tree();
}

/// A prompt with no word to search for has no memories, and that is nothing to report: it
/// printed `the query "?" has no words to search for` on the host's log.
#[test]
fn a_prompt_without_words_calls_up_nothing_and_says_nothing() {
    let env = seeded();
    let head = env.head();
    for prompt in ["?", "👍", "..."] {
        let out = prompt_hook(&env, prompt);
        assert_eq!((out.code, out.stdout.as_str(), out.stderr.as_str()), (0, "", ""), "{prompt:?}");
        let out = env.run(["hook", "codex"]).current_dir_home().stdin(
            serde_json::json!({"hook_event_name": "UserPromptSubmit", "cwd": env.root, "prompt": prompt})
                .to_string(),
        );
        let out = out.output();
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (0, "{}\n", ""),
            "{prompt:?}"
        );
    }
    assert_eq!(env.head(), head, "nothing is written");
    env.assert_clean_tree();
}

/// The issue-18 workspace after `supersede tool--jenkins --by tool--github-actions`.
fn superseded_tool() -> TestEnv {
    let env = crate::context::ci_workspace();
    env.mutate(["supersede", "tool--jenkins", "--by", "tool--github-actions"]);
    env
}

/// Runs the Claude Code prompt hook with `prompt`.
fn prompt_hook(env: &TestEnv, prompt: &str) -> Output {
    let json = serde_json::json!({
        "session_id": "s", "transcript_path": "/nowhere.jsonl", "cwd": env.root,
        "permission_mode": "default", "hook_event_name": "UserPromptSubmit",
        "prompt": prompt
    });
    env.run(["hook", "claude-code"]).current_dir_home().stdin(json.to_string()).output()
}

#[test]
fn session_start_shows_a_superseded_tool_as_history_not_current() {
    let env = superseded_tool();
    let none = env.home.join("none.jsonl");
    let text = added_context(&hook(&env, "claude-code", "SessionStart", &none), "SessionStart");
    assert!(text.contains("### project--atlas\n- Atlas is the billing platform rewrite"), "{text}");
    assert!(!text.contains("- uses: [[tool--jenkins]]"), "{text}");
    assert!(
        text.contains("- formerly uses: [[tool--jenkins]] (tool--jenkins superseded by"),
        "{text}"
    );
    assert!(!text.contains("### tool--jenkins"), "{text}");
}

#[test]
fn prompt_memories_show_a_superseded_tool_as_history_not_current() {
    let env = superseded_tool();
    let out = prompt_hook(&env, "how do Atlas builds get to the CI cluster?");
    let text = added_context(&out, "UserPromptSubmit");
    let line = text.lines().find(|l| l.starts_with("- [entity:project--atlas]")).expect(&text);
    assert!(!line.contains("uses: [[tool--jenkins]] (since"), "{line}");
    assert!(
        line.contains("formerly uses: [[tool--jenkins]] (tool--jenkins superseded by"),
        "{line}"
    );
}

/// The SessionStart pack and the timing marks of the run.
#[cfg(feature = "timings")]
fn session_pack(env: &TestEnv, now: &str) -> (String, String) {
    let none = env.home.join("none.jsonl");
    let json = fixture("hooks/claude-code/SessionStart.json", &env.root, &none);
    let out = env
        .run(["hook", "claude-code"])
        .current_dir_home()
        .env("COGMEM_NOW", now)
        .env("COGMEM_TIMINGS", "1")
        .stdin(json)
        .output();
    (added_context(&out, "SessionStart"), out.stderr.clone())
}

#[cfg(feature = "timings")] // reads which decay source the pack used
#[test]
fn a_session_pack_ranks_entities_from_the_index_caches_as_from_the_decay_files() {
    let env = seeded();
    // Entities with decay entries of different ages (and one forgotten), entities written by
    // hand (no entry: they count as new, a tie broken by date), a superseded one: more than
    // the 30 the pack ranks.
    for (i, day) in ["2026-06-01", "2026-08-10", "2026-10-05", "2026-11-20"].iter().enumerate() {
        for j in 0..3 {
            let text = format!("Person {i}{j} works on project {j}");
            env.run(["remember", &text, "--entity", &format!("person--p{i}{j}")])
                .env("COGMEM_NOW", format!("{day}T09:0{j}:00Z"))
                .success();
        }
    }
    env.run(["forget", "--id", "entity:person--p31", "--yes"]).success();
    // 40 tools tied at 1.0, the newest last in file order: the cards go to the newest ones,
    // which only a ranking that reads every tied entity finds.
    for k in 0..40 {
        let created =
            if k < 31 { format!("2026-10-{:02}", k + 1) } else { format!("2026-11-{:02}", k - 30) };
        env.write(
            &format!("memory/graph/entities/tool--t{k:02}.md"),
            &format!(
                "# T{k:02}\n<!-- Type: tool | Created: {created} -->\n\n## Facts\n- T{k:02} is a tool we use\n"
            ),
        );
    }
    env.write(
        "memory/graph/entities/tool--old.md",
        "---\ntype: tool\nstatus: superseded\ncreated: 2026-10-30\n---\n# Old\n\n## Facts\n- Old was a tool\n",
    );
    env.git_commit_all("tools by hand");
    let now = "2026-12-01T10:00:00Z";
    env.run(["search", "tool"]).env("COGMEM_NOW", now).success(); // the caches are current
    let (cached, marks) = session_pack(&env, now);
    assert!(marks.contains("entities ranked from the index's caches"), "{marks}");
    assert!(marks.contains("decay inputs from the index's caches"), "{marks}");
    assert!(cached.contains("T39 is a tool"), "the newest tools get the cards: {cached}");
    assert!(!cached.contains("T29 is a tool"), "ten cards, the newest first: {cached}");
    assert!(!cached.contains("Person 31"), "a forgotten entity stays out: {cached}");
    // The decay file changed since its cache was written (here: only its time): the files.
    let decay = env.path("memory/meta/decay-scores.json");
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    std::fs::File::options().write(true).open(&decay).unwrap().set_modified(later).unwrap();
    let (from_files, marks) = session_pack(&env, now);
    assert!(marks.contains("entities ranked from the decay files"), "{marks}");
    assert!(marks.contains("decay inputs from the decay files"), "{marks}");
    assert_eq!(from_files, cached);
    // No index at all: the same. A background merge or update the searches above started may
    // still be writing into the folder (the removal then finds it not empty): try again.
    let index = env.path(".cogmem/index");
    let removed = (0..100).any(|_| {
        std::fs::remove_dir_all(&index).is_ok() || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            false
        }
    });
    assert!(removed, "could not remove {}", index.display());
    let (no_index, marks) = session_pack(&env, now);
    assert!(marks.contains("entities ranked from the decay files"), "{marks}");
    assert_eq!(no_index, cached);
}

#[test]
fn a_recall_prompt_records_as_recalled_the_memories_its_pack_shows() {
    let env = seeded();
    env.run(["remember", "The Atlas cut-over window is Sunday 02:00 UTC"]).success();
    env.run(["remember", "Lunch on Fridays is at the taqueria"]).success();
    let uses = |env: &TestEnv| -> Vec<String> {
        let log = env.path(".cogmem/access.log");
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let mut ids: Vec<String> =
            text.lines().filter_map(|l| l.split('\t').nth(2)).map(str::to_owned).collect();
        ids.retain(|id| id != "-");
        ids.sort();
        ids
    };
    // An ordinary prompt: the pack shows memories, and nothing counts as recalled.
    let out = prompt_hook(&env, "Atlas cut-over plan");
    assert!(added_context(&out, "UserPromptSubmit").contains("Sunday 02:00"), "{out}");
    assert_eq!(uses(&env), Vec::<String>::new(), "{out}");
    // A recall: what the pack shows, each once, and nothing it does not show (core memory,
    // always in the agent's context, is never in the pack, though the question matches it).
    let out = prompt_hook(&env, "What did we decide about Dana and Atlas?");
    let text = added_context(&out, "UserPromptSubmit");
    let shown: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("- [")?.split_once(']').map(|(id, _)| id.to_owned()))
        .collect();
    assert!(!shown.is_empty() && text.contains("Postgres 16"), "{text}");
    assert!(!text.contains("taqueria"), "{text}");
    let mut expected = shown.clone();
    expected.sort();
    assert_eq!(uses(&env), expected, "{text}");
}

/// Runs `host`'s hook on `event` with its timing marks on stderr.
#[cfg(feature = "timings")]
fn timed_hook(env: &TestEnv, host: &str, event: &serde_json::Value) -> Output {
    let run = env.run(["hook", host]).current_dir_home().env("COGMEM_TIMINGS", "1");
    run.stdin(event.to_string()).output()
}

/// How each read of a hook run for `prompt` found what changed: its `files stat-ed (HOW: N)`
/// marks.
#[cfg(feature = "timings")]
fn scans(env: &TestEnv, prompt: &str) -> (Output, Vec<String>) {
    let json = serde_json::json!({
        "session_id": "s", "cwd": env.root.display().to_string(),
        "hook_event_name": "UserPromptSubmit", "prompt": prompt,
    });
    let out = timed_hook(env, "claude-code", &json);
    let how = out
        .stderr
        .lines()
        .filter_map(|l| l.split_once("files stat-ed (").map(|(_, h)| h.trim_end_matches(')')))
        .map(|h| h.split(':').next().unwrap_or("").to_owned())
        .collect();
    (out, how)
}

#[cfg(feature = "timings")] // reads the `files stat-ed` timing marks
#[test]
fn the_reads_of_one_prompt_share_one_scan_and_none_follows_its_write() {
    let env = seeded();
    env.run(["search", "Atlas"]).success(); // the index is built
    // A question `hear` takes for a recall: the pack answers it, with the one read.
    let question = "What did we decide about Atlas?";
    let (out, how) = scans(&env, question);
    assert!(added_context(&out, "UserPromptSubmit").contains("Postgres 16"), "{out}");
    assert_eq!(how, ["full scan"], "{out}");
    // A hand edit before the next prompt is seen by its first read.
    env.write("memory/vault/db.md", "# DB\n\nWe decided Atlas moves to Postgres 17 after all.\n");
    let (out, how) = scans(&env, question);
    assert_eq!(how[0], "full scan", "{out}");
    assert!(added_context(&out, "UserPromptSubmit").contains("Postgres 17"), "{out}");
    // A prompt that writes: the pack's read scans (before the write), `hear` trusts that scan
    // for the entities' names, and the write's index update runs in a process of its own, as
    // a command's does: nothing in the hook reads after its write.
    let (out, how) = scans(&env, "Remember that the Atlas replica moves to Frankfurt in January.");
    assert!(added_context(&out, "UserPromptSubmit").contains("remembered"), "{out}");
    assert_eq!(how, ["full scan", "this operation's scan"], "{out}");
    // What it wrote is what the pack finds.
    let (out, _) = scans(&env, "Where does the Atlas replica move?");
    assert!(added_context(&out, "UserPromptSubmit").contains("Frankfurt"), "{out}");
}

/// Whether the workspace's search index matches its files (`status --json`), polled while a
/// background `cogmem reindex` runs: `false` if it is not fresh within two minutes.
fn index_becomes_fresh(env: &TestEnv) -> bool {
    for _ in 0..600 {
        let out = env.run(["status", "--json"]).output();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_default();
        if v["index"] == "fresh" {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    false
}

/// A prompt hook does not catch up on an index far behind the files (a `reindex --full` killed
/// half-way left one to rebuild, for minutes on a large workspace, before the prompt was heard,
/// and a host that kills a slow hook lost the user's "remember that …"): the prompt is heard,
/// the memories are left out with a notice, and a `cogmem reindex` started in the background
/// brings the index up to date for the next prompt. Both cases: an index to build from scratch,
/// and one more than 500 files behind.
#[test]
fn a_prompt_is_heard_without_catching_up_on_an_index_far_behind() {
    let env = seeded();
    env.run(["search", "Atlas"]).success();
    let prompt = |text: &str| {
        let json = serde_json::json!({
            "hook_event_name": "UserPromptSubmit", "cwd": env.root, "prompt": text
        });
        let out =
            env.run(["hook", "claude-code"]).current_dir_home().stdin(json.to_string()).output();
        (added_context(&out, "UserPromptSubmit"), out.stderr)
    };
    std::fs::remove_dir_all(env.path(".cogmem/index")).unwrap();
    let (text, log) = prompt("Remember that the Atlas replica moves to Frankfurt in January.");
    assert!(text.starts_with("cogmem remembered what the user asked it to"), "{text}");
    assert!(
        text.contains(
            "cogmem could not look up the memories that match the user's message: \
             [TMP]/ws/.cogmem/index: the search index must be built again"
        ),
        "{text}"
    );
    assert!(log.contains("(hint: `cogmem reindex` brings it up to date)"), "{log}");
    assert!(env.read("memory/graph/entities/place--frankfurt.md").contains("Frankfurt in January"));
    assert!(index_becomes_fresh(&env), "the background reindex built the index");
    let (text, _) = prompt("Where does the Atlas replica move?");
    assert!(text.contains("Frankfurt in January"), "{text}");

    for i in 0..501 {
        env.write(&format!("memory/vault/note-{i}.md"), &format!("# Note {i}\n\nLine {i}.\n"));
    }
    let (text, _) = prompt("What do we know about Postgres?");
    assert!(text.contains("the search index is 501 files behind the memory files"), "{text}");
    assert!(index_becomes_fresh(&env), "the background reindex caught up");
    let (text, _) = prompt("What is in note 7?");
    assert!(text.contains("Line 7."), "{text}");
}
