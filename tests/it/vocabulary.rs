//! The relation vocabulary is checked at write time (issue 18): every path that writes a
//! relation refuses one `memory/graph/relations.md` lacks, with the nearest known names and the
//! command that adds it; `graph relation add` adds one in one commit, after which the same
//! write succeeds with its inverse link.
// See: issue 18

use crate::common::TestEnv;

/// The committed files under memory/ that hold `needle`.
fn files_with(env: &TestEnv, needle: &str) -> Vec<String> {
    let out = env.git_command(&["grep", "-l", "-F", needle, "HEAD", "--", "memory"]).output();
    String::from_utf8_lossy(&out.expect("git grep runs").stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

const UNKNOWN: &str = "person--kenji|work-on|project--billing";

/// Checks a refusal of `work-on`: exit 1, the nearest name, the way to add it, nothing written.
#[track_caller]
fn assert_refused(env: &TestEnv, args: &[&str]) {
    let head = env.head();
    let before = env.snapshot();
    let out = env.run(args).output().code(1);
    assert!(
        out.stderr.starts_with("error: unknown relation `work-on`: ")
            && out
                .stderr
                .contains("/memory/graph/relations.md does not define it; nearest: `works-on`\n"),
        "{args:?}: {out}"
    );
    assert!(
        out.stderr.contains(
            "`cogmem graph relation add work-on --inverse INVERSE --signature 'person->project'`"
        ),
        "{args:?}: {out}"
    );
    assert_eq!(env.head(), head, "{args:?}: no commit");
    assert_eq!(env.snapshot(), before, "{args:?}: nothing written");
}

/// Declares `work-on` (person→project, inverse `worked-on-by-person`), as one change.
#[track_caller]
fn add_work_on(env: &TestEnv, extra: &[&str]) -> crate::common::Output {
    let mut args = vec!["graph", "relation", "add", "work-on", "--inverse", "worked-on-by-person"];
    args.extend(["--signature", "person->project"]);
    args.extend(extra);
    env.mutate(args)
}

#[test]
fn issue_18_an_unknown_relation_is_refused_by_remember_and_propose() {
    let env = TestEnv::initialized();
    assert_refused(&env, &["remember", "Kenji works on billing", "--relation", UNKNOWN]);
    assert_refused(
        &env,
        &[
            "remember",
            "x",
            "--routing",
            r#"{"store":"semantic","relations":[["person--kenji","work-on","project--billing"]]}"#,
        ],
    );
    assert_refused(
        &env,
        &["--actor", "subagent:scout", "propose", "Kenji works on billing", "--relation", UNKNOWN],
    );
    env.assert_clean_tree();
}

#[test]
fn issue_18_a_proposal_whose_relation_left_the_vocabulary_is_not_committed() {
    let env = TestEnv::initialized();
    add_work_on(&env, &[]);
    env.run([
        "--actor",
        "subagent:scout",
        "propose",
        "Kenji works on billing",
        "--relation",
        UNKNOWN,
    ])
    .output()
    .success();
    // The user takes the relation out again by hand.
    let vocab = env.read("memory/graph/relations.md");
    let without: String =
        vocab.lines().filter(|l| !l.contains("`work-on`")).map(|l| format!("{l}\n")).collect();
    env.write("memory/graph/relations.md", &without);
    env.git_commit_all("drop work-on");
    assert_refused(&env, &["pending", "approve", "1", "--actor", "user:kai"]);
    let pending = env.run(["pending", "list"]).output().success().stdout;
    assert!(pending.contains("#1"), "still pending: {pending}");
}

#[test]
fn issue_18_hear_drops_a_routed_relation_the_vocabulary_lacks_and_says_why() {
    let env = TestEnv::initialized();
    // A workspace whose vocabulary has no `lives-in` (an older or hand-edited one).
    let vocab = env.read("memory/graph/relations.md");
    let without: String =
        vocab.lines().filter(|l| !l.contains("`lives-in`")).map(|l| format!("{l}\n")).collect();
    env.write("memory/graph/relations.md", &without);
    env.git_commit_all("no lives-in");
    let out = env.run(["hear", "remember that I live in Kyoto"]).output().success();
    assert!(
        out.stdout.contains("`lives-in` is not in memory/graph/relations.md")
            && out.stdout.contains("`cogmem doctor --fix`"),
        "{out}"
    );
    let linked = files_with(&env, "lives-in");
    assert!(
        linked.iter().all(|f| !f.contains("/entities/")),
        "no lives-in link: {linked:?}\n{out}"
    );
    assert!(!files_with(&env, "Kyoto").is_empty(), "the rest is remembered:\n{out}");
    env.assert_clean_tree();
}

#[test]
fn issue_18_relation_add_then_the_same_remember_writes_both_links() {
    let env = TestEnv::initialized();
    assert_refused(&env, &["remember", "Kenji works on billing", "--relation", UNKNOWN]);
    let out = add_work_on(&env, &["--meaning", "a person puts time into a project"]);
    assert!(out.stderr.contains("added to memory/graph/relations.md:"), "{out}");
    let vocab = env.read("memory/graph/relations.md");
    assert!(
        vocab.ends_with(
            "## Added\n\n- `work-on` / `worked-on-by-person` (person→project) — a person puts time \
             into a project\n"
        ),
        "{vocab}"
    );
    let log = env.git(&["log", "-1", "--format=%s"]);
    assert!(log.contains("memory/graph/relations.md"), "{log}");
    let line = env.audit_lines().last().cloned().unwrap();
    assert!(
        line.contains("| EDIT | memory/graph/relations.md |")
            && line.contains("| new relation `work-on` / `worked-on-by-person` (person→project)"),
        "{line}"
    );

    env.mutate(["remember", "Kenji works on billing", "--relation", UNKNOWN]);
    let billing = env.read("memory/graph/entities/project--billing.md");
    assert!(billing.contains("- worked-on-by-person: [[person--kenji]]"), "{billing}");
    let kenji = env.read("memory/graph/entities/person--kenji.md");
    assert!(kenji.contains("- work-on: [[project--billing]]"), "{kenji}");
    env.run(["graph", "check"]).output().success();

    let list = env.run(["graph", "relation", "list", "--json"]).output().success().stdout;
    let list: serde_json::Value = serde_json::from_str(&list).unwrap();
    let added = list.as_array().unwrap().iter().find(|r| r["name"] == "work-on").unwrap();
    assert_eq!(added["inverse"], "worked-on-by-person");
    assert_eq!(added["from_types"], serde_json::json!(["person"]));
    let inverse =
        list.as_array().unwrap().iter().find(|r| r["name"] == "worked-on-by-person").unwrap();
    assert_eq!(inverse["declared"], false);
    let text = env.run(["graph", "relation", "list"]).output().success().stdout;
    assert!(text.contains("lives-in  (inverse home-of, functional, person->place)"), "{text}");
}

#[test]
fn issue_18_relation_add_refuses_duplicates_and_bad_names() {
    let env = TestEnv::initialized();
    let head = env.head();
    for (args, words) in [
        (vec!["works-on", "--inverse", "x-by"], "cannot add relation `works-on`"),
        (vec!["maintains", "--inverse", "home-of"], "cannot add relation `home-of`"),
        (vec!["Maintains", "--inverse", "maintained-by"], "lower-kebab"),
        (vec!["maintains", "--inverse", "maintains"], "use --symmetric"),
        (vec!["maintains", "--inverse", "m-by", "--signature", "person"], "unknown signature"),
    ] {
        let mut all = vec!["graph", "relation", "add"];
        all.extend(args.iter().copied());
        let out = env.run(&all).output().code(1);
        assert!(out.stderr.starts_with("error: ") && out.stderr.contains(words), "{all:?}: {out}");
    }
    // Without an inverse or --symmetric, clap refuses it.
    env.run(["graph", "relation", "add", "maintains"]).output().code(2);
    env.run(["graph", "relation", "add", "maintains", "--symmetric", "--inverse", "x"])
        .output()
        .code(2);
    assert_eq!(env.head(), head);
    // A sub-agent only proposes.
    env.run(["--actor", "subagent:scout", "graph", "relation", "add", "twin-of", "--symmetric"])
        .output()
        .code(4);
    assert_eq!(env.head(), head);
}

#[test]
fn issue_18_graph_check_says_how_to_add_an_unknown_relation() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Kenji", "--entity", "person--kenji"]);
    let rel = "memory/graph/entities/person--kenji.md";
    let text = env.read(rel);
    env.write(rel, &format!("{text}- work-on: [[person--kenji]]\n"));
    env.git_commit_all("hand edit");
    let out = env.run(["graph", "check"]).output().code(3);
    assert!(
        out.stdout.contains(
            "`work-on` is not in memory/graph/relations.md (nearest: `works-on`); use a known \
             relation, or add it with `cogmem graph relation add work-on --inverse INVERSE \
             --signature 'person->person'`"
        ),
        "{out}"
    );
}

const MCP_CLIENT: &str = r#"
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

cfg = json.loads(sys.argv[1])


def server(*extra):
    return StdioServerParameters(command=cfg["bin"], args=["mcp", "--workspace", cfg["workspace"], *extra],
                                 env=cfg["env"])


def refused(r):
    assert r.is_error, r
    t = r.content[0].text
    assert t.startswith("error: unknown relation `work-on`") and "nearest: `works-on`" in t, t
    assert "graph relation add work-on --inverse INVERSE --signature 'person->project'" in t, t


async def main():
    async with stdio_client(server()) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            rel = ["person--kenji|work-on|project--billing"]
            refused(await s.call_tool("remember", {"text": "Kenji works on billing", "relations": rel}))
            listed = (await s.call_tool("graph_relations", {})).structured_content["relations"]
            works = [r for r in listed if r["name"] == "works-on"]
            assert works and works[0]["inverse"] == "worked-on-by" and works[0]["declared"], listed
            refused(await s.call_tool("remember", {"text": "Kenji works on billing", "routing": json.dumps(
                {"store": "semantic", "relations": [["person--kenji", "work-on", "project--billing"]]})}))
    async with stdio_client(server("--role", "subagent", "--agent", "scout")) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            refused(await s.call_tool("propose", {"text": "Kenji works on billing", "relations": rel}))
    print("mcp vocabulary client: all checks passed")


asyncio.run(asyncio.wait_for(main(), 120))
"#;

#[test]
fn issue_18_mcp_refuses_an_unknown_relation_with_the_nearest_names() {
    let env = TestEnv::initialized();
    let head = env.head();
    crate::mcp::run_client(&env, "mcp_vocabulary.py", MCP_CLIENT);
    assert_eq!(env.head(), head, "nothing committed");
    env.assert_clean_tree();
}
