//! One id form everywhere (issue 18): every command that takes a memory or an entity accepts
//! the id, `TYPE--SLUG` and `entity:TYPE--SLUG` for each other, and the start of exactly one
//! id; an ambiguous start lists the candidates, a miss names the nearest ids; hints carry the
//! real id, quoted for the shell; the flags with a fixed set of values refuse others as usage
//! errors naming the nearest value, and the completion scripts complete them.

use std::process::Command;

use crate::common::TestEnv;

/// A workspace with two people whose ids start alike.
fn two_people() -> TestEnv {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Kenji likes ramen", "--entity", "person--kenji"]);
    env.mutate(["remember", "Kenta likes sushi", "--entity", "person--kenta"]);
    env
}

// See: issue 18
#[test]
fn issue_18_why_takes_the_entity_form_the_memory_id_and_a_unique_start() {
    let env = two_people();
    for given in ["entity:person--kenji", "person--kenji", "entity:person--kenj", "person--kenj"] {
        let out = env.run(["why", given, "--json"]).success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["id"], "entity:person--kenji", "why {given}");
    }
    let out = env.run(["why", "person--ken"]).output().code(1);
    assert_eq!(
        out.stderr,
        "error: \"person--ken\" could be any of 2 memory ids\n\n\
         hint: give one in full: `entity:person--kenji`, `entity:person--kenta`\n"
    );
    let out = env.run(["why", "kenji"]).output().code(1);
    assert_eq!(
        out.stderr,
        "error: no memory has the id \"kenji\"\n\nhint: did you mean `entity:person--kenji`?\n"
    );
    let out = env.run(["why", "person--kenjii"]).output().code(1);
    assert!(out.stderr.ends_with("hint: did you mean `entity:person--kenji`?\n"), "{out}");
    env.assert_clean_tree();
}

// See: issue 18
#[test]
fn issue_18_graph_show_takes_the_memory_id_the_entity_id_and_a_unique_start() {
    let env = two_people();
    for given in ["person--kenji", "entity:person--kenji", "person--kenj", "entity:person--kenj"] {
        let out = env.run(["graph", "show", given, "--json"]).success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["node"]["id"], "person--kenji", "graph show {given}");
    }
    let out = env.run(["graph", "show", "entity:person--ken"]).output().code(1);
    assert_eq!(
        out.stderr,
        "error: \"entity:person--ken\" could be any of 2 entities\n\n\
         hint: give one in full: `person--kenji`, `person--kenta`\n"
    );
    // A well-formed id with no file: a typo of a known one, or one to create.
    let out = env.run(["graph", "show", "person--kenjii"]).output().code(1);
    assert_eq!(
        out.stderr,
        "error: there is no entity person--kenjii yet\n\n\
         hint: did you mean `person--kenji`? (`cogmem remember --entity person--kenjii \"…\"` \
         creates it)\n"
    );
    let out = env.run(["graph", "show", "kenjj"]).output().code(1);
    assert_eq!(
        out.stderr,
        "error: no entity has the id, name or alias \"kenjj\"\n\n\
         hint: did you mean `person--kenji`?\n"
    );
    // The other graph commands resolve the same way.
    let out = env.run(["graph", "path", "entity:person--kenj", "person--kent"]).success();
    assert_eq!(out.stdout, "");
    assert_eq!(out.stderr, "no path between them\n");
}

// See: issue 18
#[test]
fn issue_18_a_whole_episode_id_is_not_the_start_of_its_minutes_other_entries() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "first"]);
    env.mutate(["remember", "second"]);
    let out = env.run(["show", "episode:2026-12-01:09:00:2", "--json"]).success();
    assert!(out.stdout.contains("\"second\""), "{out}");
    // The start of a day is ambiguous between its entries.
    let out = env.run(["why", "episode:2026-12-01"]).output().code(1);
    assert!(
        out.stderr.ends_with(
            "hint: give one in full: `episode:2026-12-01:09:00`, `episode:2026-12-01:09:00:2`\n"
        ),
        "{out}"
    );
    env.mutate(["forget", "--id", "episode:2026-12-01:09:00", "--permanent", "--yes"]);
    let out = env.run(["show", "episode:2026-12-01:09:00"]).output().code(1);
    assert!(out.stderr.starts_with("error: no memory has the id"), "{out}");
}

/// The words a POSIX shell makes of `command` (the text after `cogmem `).
fn shell_words(command: &str) -> Vec<String> {
    let out = Command::new("sh")
        .args(["-c", &format!("printf '%s\\0' {command}")])
        .output()
        .expect("sh runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    text.split_terminator('\0').map(str::to_owned).collect()
}

// See: issue 18
#[test]
fn issue_18_forget_prints_the_restore_command_with_the_real_id_quoted_for_the_shell() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Ship Atlas on Friday"]);
    // The start of the id is enough to forget; the hint names the whole id.
    let out = env.mutate(["forget", "--id", "episode:2026-12", "--yes"]);
    assert!(out.stderr.ends_with("undo with: cogmem restore episode:2026-12-01:09:00\n"), "{out}");
    env.mutate(["restore", "episode:2026-12-01:09:00"]);
    // A procedure written by hand under a name a shell would split.
    env.write("memory/procedures/it's done.md", "# It's done\n\n## Steps\n1. check\n");
    env.mutate(["sync"]);
    let out = env.mutate(["forget", "--id", "procedure:it", "--yes"]);
    let hint = out.stderr.lines().find_map(|l| l.strip_prefix("undo with: cogmem ")).unwrap();
    assert_eq!(hint, r"restore 'procedure:it'\''s done'", "{out}");
    // The command as printed, read by a real shell, restores it.
    let words = shell_words(hint);
    assert_eq!(words, ["restore", "procedure:it's done"]);
    let out = env.mutate(&words);
    assert!(out.stderr.starts_with("restored procedure:it's done (commit"), "{out}");
    // A dry run names the id to confirm with, too.
    let out = env.run(["forget", "--id", "procedure:it", "--dry-run"]).success();
    assert!(
        out.stderr.contains(r"confirm with `cogmem forget --id 'procedure:it'\''s done' --yes`"),
        "{out}"
    );
}

// See: issue 18
#[test]
fn issue_18_an_unknown_store_is_a_usage_error_that_names_the_nearest() {
    let env = TestEnv::initialized();
    let head = env.head();
    let out = env.run(["remember", "x", "--store", "episodicc"]).output().code(2);
    assert!(out.stderr.starts_with("error: invalid value 'episodicc' for '--store <STORE>'"));
    assert!(out.stderr.contains("[possible values: core, episodic, semantic, procedural, vault]"));
    assert!(out.stderr.contains("a similar value exists: 'episodic'"), "{out}");
    assert_eq!(env.head(), head);
    // The values keep their old spellings: any case, commas, a section's heading.
    env.mutate(["remember", "y", "--store", "Episodic,core", "--section", "Active Context"]);
    assert!(env.read("MEMORY.md").contains("- y\n"));
    let out = env.run(["search", "x", "--store", "vaul"]).output().code(2);
    assert!(out.stderr.contains("a similar value exists: 'vault'"), "{out}");
    let out = env.run(["audit", "--action", "archiv"]).output().code(2);
    assert!(out.stderr.contains("a similar value exists: 'archive'"), "{out}");
    env.run(["audit", "--action", "ARCHIVE"]).success();
}

// See: issue 18
#[test]
fn issue_18_tags_given_with_an_entity_go_on_the_entity() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "Hana is my sister",
        "--entity",
        "person--hana",
        "--tags",
        "family,kin",
    ]);
    let card = env.read("memory/graph/entities/person--hana.md");
    assert!(card.contains("| Tags: family, kin -->\n"), "{card}");
    // More tags join the ones there; the entity is found by them.
    env.mutate([
        "remember",
        "Hana lives in Kyoto",
        "--entity",
        "person--hana",
        "--tags",
        "kin,kyoto",
    ]);
    let card = env.read("memory/graph/entities/person--hana.md");
    assert!(card.contains("| Tags: family, kin, kyoto -->\n"), "{card}");
    let out = env.run(["search", "family", "--json"]).success();
    assert!(out.stdout.contains("entity:person--hana"), "{out}");
    // A store without tags refuses them rather than dropping them.
    let out = env.run(["remember", "x", "--store", "core", "--tags", "a"]).output().code(1);
    assert_eq!(
        out.stderr,
        "error: --tags applies only to the episodic, semantic or vault store, which this memory \
         does not go to\n\nhint: add `--store episodic`, or drop the flag\n"
    );
    env.assert_clean_tree();
}

// See: issue 18
#[test]
fn issue_18_entity_flags_take_the_entitys_memory_id_too() {
    let env = TestEnv::initialized();
    env.mutate([
        "remember",
        "Hana lives in Kyoto",
        "--entity",
        "entity:person--hana",
        "--relation",
        "entity:person--hana|lives-in|place--kyoto",
    ]);
    let card = env.read("memory/graph/entities/person--hana.md");
    assert!(card.contains("- lives-in: [[place--kyoto]]"), "{card}");
    let out = env.run(["search", "Kyoto", "--entity", "entity:person--hana", "--json"]).success();
    assert!(out.stdout.contains("\"entity:person--hana\""), "{out}");
}

// See: issue 18
#[test]
fn issue_18_a_forget_request_in_a_prompt_gives_the_agent_the_command_with_the_real_id() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "the office plant is a ficus"]);
    let head = env.head();
    let json = serde_json::json!({
        "session_id": "s", "transcript_path": "/nowhere.jsonl", "cwd": env.root,
        "permission_mode": "default", "hook_event_name": "UserPromptSubmit",
        "prompt": "please forget about the office plant"
    });
    let out = env.run(["hook", "claude-code"]).current_dir_home().stdin(json.to_string()).output();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("stdout is JSON");
    let text = v["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(
        text.contains("once they confirm it: `cogmem forget --id episode:2026-12-01:09:00 --yes`"),
        "{text}"
    );
    assert_eq!(env.head(), head, "nothing forgotten yet");
}

/// An MCP client: the tools that take an entity or a memory id accept the other's form, and a
/// miss names the nearest id.
const MCP_CLIENT: &str = r#"
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

cfg = json.loads(sys.argv[1])


async def main():
    params = StdioServerParameters(
        command=cfg["bin"], args=["mcp", "--workspace", cfg["workspace"]], env=cfg["env"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            shown = await s.call_tool("graph_show", {"entity": "entity:person--kenji"})
            assert not shown.is_error, shown.content[0].text
            assert json.loads(shown.content[0].text)["node"]["id"] == "person--kenji", shown
            why = await s.call_tool("why", {"id": "person--kenj"})
            assert not why.is_error, why.content[0].text
            assert json.loads(why.content[0].text)["id"] == "entity:person--kenji", why
            touched = await s.call_tool("touch", {"id": "person--kenji"})
            assert json.loads(touched.content[0].text) == {"id": "entity:person--kenji"}, touched
            missed = await s.call_tool("why", {"id": "kenji"})
            assert missed.is_error, missed
            assert "did you mean `entity:person--kenji`?" in missed.content[0].text, missed
            several = await s.call_tool("graph_show", {"entity": "person--ken"})
            assert several.is_error, several
            assert "`person--kenji`, `person--kenta`" in several.content[0].text, several
    print("mcp client: all checks passed")


asyncio.run(main())
"#;

// See: issue 18
#[test]
fn issue_18_mcp_tools_take_every_id_form() {
    let env = two_people();
    crate::mcp::run_client(&env, "ids_client.py", MCP_CLIENT);
    env.assert_clean_tree();
}
