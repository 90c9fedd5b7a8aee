//! The AGENTS.md block, followed to the letter (issue 17): an agent edits an entity file and
//! creates another by hand, runs the commands the block's "Editing memory files by hand"
//! section gives (read from the block `init --agents-md` really writes), and the workspace is
//! consistent: `verify` exits 0, every unit has a decay entry, the graph index lists the new
//! entity, `search` finds the new text, and the audit log records the hand edits. Also: a plain
//! `git commit` by someone else is adopted by the next cogmem command that writes, once.
// See: issue 17

use crate::common::TestEnv;

/// The commands of the block's "Editing memory files by hand" section: the lines of its `sh`
/// code block, comments dropped, split into words.
fn hand_edit_commands(block: &str) -> Vec<Vec<String>> {
    let section = block
        .split("### Editing memory files by hand")
        .nth(1)
        .unwrap_or_else(|| panic!("the block has no hand-editing section:\n{block}"));
    let section = section.split("\n### ").next().unwrap();
    let code = section
        .split("```sh\n")
        .nth(1)
        .unwrap_or_else(|| panic!("the hand-editing section has no sh block:\n{section}"))
        .split("```")
        .next()
        .unwrap();
    code.lines()
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .map(|l| l.split_whitespace().map(str::to_owned).collect())
        .collect()
}

const NEW_ENTITY: &str = "# project--zephyr
<!-- Type: project | Created: 2026-12-01 | Last updated: 2026-12-01 -->
<!-- Decay score: 1.00 | Access count: 1 | Pinned: no -->

## Summary
Zephyr counts quokkas on Rottnest island.

## Facts
- The quokka census runs every spring.

## Timeline

## Open Questions

## Relations
- developed-by: [[person--alice]]
";

/// A workspace whose AGENTS.md has the block, with Alice remembered, then edited by hand: a
/// fact added to her file and a new entity file. Returns the block's commands.
fn hand_edited() -> (TestEnv, Vec<Vec<String>>) {
    let env = TestEnv::new();
    std::fs::create_dir_all(&env.root).unwrap();
    env.run(["init", "--agents-md"]).success();
    env.run(["remember", "--entity", "person--alice", "Alice prefers green tea"]).success();
    let block = env.read("AGENTS.md");
    let commands = hand_edit_commands(&block);
    assert!(
        commands.iter().any(|c| c.first().map(String::as_str) == Some("cogmem")),
        "the block tells the agent to run cogmem after a hand edit: {commands:?}"
    );
    let alice = env.read("memory/graph/entities/person--alice.md");
    let alice = alice.replace("## Facts\n", "## Facts\n- Alice keeps a marmot named Biscuit.\n");
    env.write("memory/graph/entities/person--alice.md", &alice);
    env.write("memory/graph/entities/project--zephyr.md", NEW_ENTITY);
    (env, commands)
}

/// Runs the block's commands as the agent would; `cogmem verify` among them must pass.
fn follow(env: &TestEnv, commands: &[Vec<String>]) {
    for c in commands {
        assert_eq!(c[0], "cogmem", "the block's commands are cogmem commands: {c:?}");
        env.run(&c[1..]).success();
    }
}

/// What must hold after the block was followed.
fn assert_consistent(env: &TestEnv, author: &str) {
    env.run(["verify"]).success();
    env.assert_clean_tree();
    let decay = env.read("memory/meta/decay-scores.json");
    for id in ["entity:person--alice", "entity:project--zephyr"] {
        assert!(decay.contains(&format!("\"{id}\"")), "{id} has a decay entry:\n{decay}");
    }
    let index = env.read("memory/graph/index.md");
    assert!(index.contains("| project--zephyr | project |"), "index lists zephyr:\n{index}");
    assert!(index.contains("| project--zephyr | developed-by | person--alice |"), "{index}");
    let out = env.run(["search", "marmot"]).success();
    assert!(out.stdout.contains("person--alice"), "search finds the hand edit:\n{out}");
    let out = env.run(["search", "quokka"]).success();
    assert!(out.stdout.contains("project--zephyr"), "search finds the new entity:\n{out}");
    let lines = env.audit_lines();
    let line = |file: &str, action: &str| {
        lines.iter().find(|l| {
            let f: Vec<&str> = l.split(" | ").collect();
            f.get(1) == Some(&action) && f.get(2) == Some(&file) && f.get(3) == Some(&author)
        })
    };
    assert!(
        line("memory/graph/entities/person--alice.md", "EDIT").is_some(),
        "an EDIT line by {author} for alice:\n{}",
        lines.join("\n")
    );
    let created = line("memory/graph/entities/project--zephyr.md", "CREATE");
    assert!(created.is_some_and(|l| l.contains("created by hand")), "{}", lines.join("\n"));
}

#[test]
fn issue_17_following_the_block_after_hand_edits_leaves_a_consistent_workspace() {
    let (env, commands) = hand_edited();
    follow(&env, &commands);
    assert_consistent(&env, "test-agent");
}

/// An agent that also committed its hand edits with plain git (which the block allows) and
/// then ran the block's commands: the commit is adopted, its lines name the commit's author.
#[test]
fn issue_17_a_git_commit_then_the_blocks_commands_is_adopted_under_its_author() {
    let (env, commands) = hand_edited();
    env.git_commit_all("notes on alice and zephyr");
    let hand = env.head();
    follow(&env, &commands);
    assert_consistent(&env, "tester");
    let log = env.git(&["log", "--format=%an|%s", &format!("{hand}..HEAD")]);
    assert_eq!(log.lines().count(), 1, "one adoption commit:\n{log}");
    assert!(log.starts_with("system:adopt|[MERGE] "), "{log}");
    assert!(log.contains("adopted 1 commit made outside cogmem"), "{log}");
}

/// Before: `verify` called the workspace clean apart from the decay entry, and said nothing
/// of the stale graph index. Now it names both, and the commit nobody adopted.
#[test]
fn issue_17_verify_reports_an_unadopted_commit_and_the_stale_graph_index() {
    let (env, _) = hand_edited();
    env.git_commit_all("notes on alice and zephyr");
    let out = env.run(["verify"]).output().code(3);
    assert!(out.stdout.contains("entity:project--zephyr has no decay entry"), "{out}");
    assert!(out.stdout.contains("does not list entity project--zephyr"), "{out}");
    assert!(out.stdout.contains("was made outside cogmem and is not adopted"), "{out}");
    // A read neither commits nor adopts; it warns.
    let head = env.head();
    let out = env.run(["status"]).success();
    assert!(out.stderr.contains("1 commit made outside cogmem is not adopted yet"), "{out}");
    assert_eq!(env.head(), head, "status commits nothing");
}

/// A plain `git commit` of a new entity by someone else; `status` only looks, `remember`
/// adopts it in one commit whose audit lines name that author, and nothing is adopted twice.
#[test]
fn issue_17_the_next_write_adopts_a_commit_by_another_author_once() {
    let env = TestEnv::initialized();
    env.run(["remember", "--entity", "person--alice", "Alice prefers green tea"]).success();
    env.write("memory/graph/entities/project--zephyr.md", NEW_ENTITY);
    env.git(&["add", "-A"]);
    env.git_command(&["commit", "-q", "-m", "zephyr by hand"])
        .env("GIT_AUTHOR_NAME", "Bea Hand")
        .env("GIT_AUTHOR_DATE", "2026-12-01T09:30:00Z")
        .status()
        .unwrap();
    let hand = env.head();
    let out = env.run(["status"]).success();
    assert!(out.stderr.contains("not adopted yet"), "{out}");
    assert_eq!(env.head(), hand, "a read commits nothing");

    let out = env.run(["remember", "Zephyr needs a logo"]).success();
    assert!(out.stderr.contains("adopted 1 commit made outside cogmem"), "{out}");
    let log = env.git(&["log", "--format=%an", &format!("{hand}..HEAD")]);
    assert_eq!(log.lines().collect::<Vec<_>>(), ["test-agent", "system:adopt"], "{log}");
    let lines = env.audit_lines();
    let bea: Vec<&String> = lines.iter().filter(|l| l.contains(" | user:Bea-Hand | ")).collect();
    assert_eq!(bea.len(), 1, "{}", lines.join("\n"));
    assert!(
        bea[0].starts_with(
            "2026-12-01T09:30:00Z | CREATE | memory/graph/entities/project--zephyr.md"
        ) && bea[0].contains("created by hand (+16 lines) in commit "),
        "{}",
        bea[0]
    );
    assert!(env.read("memory/meta/decay-scores.json").contains("\"entity:project--zephyr\""));
    assert!(env.read("memory/graph/index.md").contains("| project--zephyr |"));
    env.run(["verify"]).success();

    // Nothing left to adopt: the next write makes only its own commit, and the marker lost
    // (derived data deleted) finds nothing to adopt again either.
    let before = env.commit_count();
    env.run(["remember", "Zephyr ships in May"]).success();
    assert_eq!(env.commit_count(), before + 1);
    env.wait_for_index();
    std::fs::remove_dir_all(env.path(".cogmem")).unwrap();
    let before = env.commit_count();
    env.run(["remember", "Zephyr has a mascot"]).success();
    assert_eq!(env.commit_count(), before + 1, "adopted once, not again");
    env.run(["verify"]).success();
}

/// cogmem's own commit moves the adoption marker with it when the marker named its parent, so
/// the next command has nothing to walk; a commit made outside cogmem in between leaves the
/// marker where it was, and that commit is still adopted by the next write.
#[test]
fn issue_20_the_marker_follows_cogmems_own_commits_but_not_a_hand_commit() {
    let env = TestEnv::initialized();
    let marker = || env.read(".cogmem/adopted").trim().to_owned();
    env.run(["remember", "Alice prefers green tea"]).success();
    env.run(["status"]).success(); // records HEAD as seen
    assert_eq!(marker(), env.head());
    for text in ["the kettle is blue", "the kettle is red"] {
        env.run(["remember", text]).success();
        assert_eq!(marker(), env.head(), "the marker follows cogmem's commit");
    }
    // A hand commit: the marker stays, the next write adopts it, then follows again.
    let seen = marker();
    env.write("memory/graph/entities/project--zephyr.md", NEW_ENTITY);
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "zephyr by hand"]);
    assert_eq!(marker(), seen);
    let out = env.run(["remember", "Zephyr needs a logo"]).success();
    assert!(out.stderr.contains("adopted 1 commit made outside cogmem"), "{out}");
    assert_eq!(marker(), env.head());
    env.run(["verify"]).success();
}

/// The operations adopt on their own, for callers that are not the CLI (the MCP server, host
/// hooks): `ops::remember` after a plain commit makes the adoption commit first.
#[test]
fn issue_17_the_remember_operation_adopts_for_callers_other_than_the_cli() {
    use cogmem::audit::Actor;
    use cogmem::ops::remember::{RememberRequest, remember};
    let env = TestEnv::new();
    let ws = env.lib_init();
    env.write(
        "memory/graph/entities/project--zephyr.md",
        NEW_ENTITY.replace("[[person--alice]]", "[[project--zephyr]]").as_str(),
    );
    env.git_commit_all("zephyr by hand");
    let hand = env.head();
    let req =
        RememberRequest::new("Zephyr needs a logo", Actor::parse("agent:claude").unwrap()).unwrap();
    remember(&ws, &req, &crate::common::clock("2026-12-01T10:00:00Z")).unwrap();
    let log = env.git(&["log", "--format=%an", &format!("{hand}..HEAD")]);
    assert_eq!(log, "agent:claude\nsystem:adopt\n");
    assert!(
        env.audit_lines()
            .iter()
            .any(|l| l.contains(" | tester | ") && l.contains("project--zephyr.md"))
    );
    env.assert_clean_tree();
}

// See: issue 17
#[test]
fn issue_17_deciding_a_proposal_adopts_for_callers_other_than_the_cli() {
    use cogmem::audit::Actor;
    use cogmem::ops::propose::{Decision, decide};
    let env = TestEnv::new();
    let ws = env.lib_init();
    env.run(["--actor", "subagent:scout", "propose", "Zephyr ships in March"]).success();
    env.write(
        "memory/graph/entities/project--zephyr.md",
        NEW_ENTITY.replace("[[person--alice]]", "[[project--zephyr]]").as_str(),
    );
    env.git_commit_all("zephyr by hand");
    let hand = env.head();
    let reject = Decision::Reject { reason: "not yet decided".into() };
    let by = Actor::parse("agent:claude").unwrap();
    decide(&ws, 1, &reject, &by, &crate::common::clock("2026-12-01T10:00:00Z")).unwrap();
    let log = env.git(&["log", "--format=%an", &format!("{hand}..HEAD")]);
    assert_eq!(log, "agent:claude\nsystem:adopt\n");
    env.assert_clean_tree();
}

// See: issue 20
/// The check for outside commits follows cogmem's own commits back to the last one it saw
/// instead of walking the history; a hand commit under a later cogmem commit (a sub-agent's
/// proposal, which adopts nothing) stops that and is still found and adopted.
#[test]
fn issue_20_a_hand_commit_under_a_proposal_is_still_adopted() {
    let env = TestEnv::initialized();
    env.run(["remember", "--entity", "person--alice", "Alice prefers green tea"]).success();
    env.run(["remember", "Alice moved to Porto"]).success();
    env.write("memory/graph/entities/project--zephyr.md", NEW_ENTITY);
    env.git(&["add", "-A"]);
    env.git_command(&["commit", "-q", "-m", "zephyr by hand"])
        .env("GIT_AUTHOR_NAME", "Bea Hand")
        .status()
        .unwrap();
    env.run(["--actor", "subagent:researcher", "propose", "Zephyr may need a logo"]).success();
    let before = env.commit_count();
    let out = env.run(["remember", "Zephyr ships in May"]).success();
    assert!(out.stderr.contains("adopted 1 commit made outside cogmem"), "{out}");
    assert_eq!(env.commit_count(), before + 2, "the adoption, then the memory");
    // Cogmem's own commits since: nothing more to adopt.
    let out = env.run(["remember", "Zephyr has a mascot"]).success();
    assert!(!out.stderr.contains("adopted"), "{out}");
    env.run(["verify"]).success();
}

/// A plain `git rm` of a procedure and a core bullet deleted by hand, committed with plain
/// git: the next writing command adopts the commit and marks the removed memories' entries
/// archived in the adoption's own commit (as `sync` does for the hand edits it commits), so
/// `verify` is clean right after; it reported orphan entries until `doctor --fix` ran.
#[test]
fn a_hand_commit_that_deletes_memories_has_their_entries_archived_by_the_adoption() {
    let env = TestEnv::initialized();
    env.run(["remember", "Allergic to peanuts", "--store", "core", "--section", "critical-facts"])
        .success();
    env.run(["remember", "--store", "procedural", "--title", "Deploy Atlas", "run migrations"])
        .success();
    let decay = || -> serde_json::Value {
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap()
    };
    let bullet = env.decay_key("core:critical-facts:");
    env.write("MEMORY.md", &env.read("MEMORY.md").replace("- Allergic to peanuts\n", ""));
    env.git(&["rm", "-q", "memory/procedures/deploy-atlas.md"]);
    env.git_commit_all("no more peanuts, no more atlas");
    let out = env.run(["remember", "Zephyr needs a logo"]).success();
    assert!(out.stderr.contains("adopted 1 commit made outside cogmem"), "{out}");
    let entries = decay()["entries"].clone();
    for key in [bullet.as_str(), "procedure:deploy-atlas"] {
        assert_eq!(entries[key]["status"], "archived", "{key}: {entries}");
        assert_eq!(entries[key]["archive"]["by"], "system:adopt", "{key}: {entries}");
    }
    let line = env.audit_lines().into_iter().find(|l| {
        l.contains("| EDIT | memory/meta/decay-scores.json | system:adopt |")
            && l.contains("archived ")
    });
    assert!(line.is_some_and(|l| l.contains("procedure:deploy-atlas")), "{:#?}", env.audit_lines());
    env.assert_clean_tree();
    env.wait_for_index();
    env.run(["verify"]).success();
}
