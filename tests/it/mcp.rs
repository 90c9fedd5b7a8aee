//! `cogmem mcp`: the official MCP Python SDK (`mcp` 2.3.0) talks to the real binary over stdio,
//! as an MCP host would. The test fails, never skips, when python3 or the SDK is missing.

use std::process::Command;

use crate::common::TestEnv;

/// The client. Argument 1 is a JSON config: the binary, the workspace, the server's
/// environment and the version it must report. It raises (exit 1) on the first failed check.
const CLIENT: &str = r#"
import asyncio, json, pathlib, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

cfg = json.loads(sys.argv[1])
READ_TOOLS = {"hear", "recall", "search", "context", "show", "graph_neighbors", "propose", "reflect_status"}
ALL_TOOLS = READ_TOOLS | {"remember", "forget", "pending"}


def server(*extra):
    return StdioServerParameters(
        command=cfg["bin"],
        args=["mcp", "--workspace", cfg["workspace"], *extra],
        env=cfg["env"],
    )


def text(result, i=0):
    return result.content[i].text


def data(result):
    assert not result.is_error, text(result)
    return json.loads(text(result))


async def main_session():
    async with stdio_client(server()) as (read, write):
        async with ClientSession(read, write) as s:
            init = await s.initialize()
            assert init.server_info.name == "cogmem", init.server_info
            assert init.server_info.version == cfg["version"], init.server_info

            tools = {t.name: t for t in (await s.list_tools()).tools}
            assert set(tools) == ALL_TOOLS, sorted(tools)
            assert tools["recall"].annotations.read_only_hint is True
            assert tools["forget"].annotations.destructive_hint is True
            assert tools["remember"].annotations.read_only_hint is False
            assert tools["remember"].input_schema["required"] == ["text"]
            assert "description" in tools["remember"].input_schema["properties"]["text"]

            report = data(await s.call_tool(
                "remember", {"text": "Alice prefers green tea over coffee", "tags": ["drinks"]}))
            assert report["commit"], report
            [unit] = report["written"]
            uid = unit["id"]

            groups = data(await s.call_tool("recall", {"query": "green tea"}))
            assert uid in [h["id"] for g in groups for h in g["hits"]], groups

            pack = data(await s.call_tool("context", {"query": "green tea", "budget": 300}))
            assert pack["budget_tokens"] == 300, pack
            assert 0 < pack["used_tokens"] <= 300, pack
            assert "green tea" in pack["text"], pack["text"]

            assert tools["reflect_status"].annotations.read_only_hint is True
            cycle = data(await s.call_tool("reflect_status", {}))
            assert cycle["state"] == "idle" and cycle["next"] == ["cogmem reflect request"], cycle

            asked = await s.call_tool("forget", {"id": uid})
            described = data(asked)
            assert [c["id"] for c in described["candidates"]] == [uid], described
            assert described["forgotten"] == [], described
            assert "confirm=true" in text(asked, 1), text(asked, 1)
            groups = data(await s.call_tool("recall", {"query": "green tea"}))
            assert uid in [h["id"] for g in groups for h in g["hits"]], "forgotten unconfirmed"

            unknown = await s.call_tool("forget", {"id": "episode:1999-01-01:00:00"})
            assert unknown.is_error, unknown
            assert text(unknown).startswith("error: no memory has the id"), text(unknown)
            assert "\n\nhint: " in text(unknown), text(unknown)

            resources = {r.uri: r for r in (await s.list_resources()).resources}
            assert "cogmem://MEMORY.md" in resources, sorted(resources)
            assert f"cogmem://{unit['path']}" in resources, sorted(resources)
            read = await s.read_resource("cogmem://MEMORY.md")
            [contents] = read.contents
            assert contents.mime_type == "text/markdown", contents
            on_disk = (pathlib.Path(cfg["workspace"]) / "MEMORY.md").read_text()
            assert contents.text == on_disk, contents.text


async def subagent_session():
    async with stdio_client(server("--role", "subagent", "--agent", "researcher")) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            names = {t.name for t in (await s.list_tools()).tools}
            assert names == READ_TOOLS, sorted(names)
            refused = await s.call_tool("remember", {"text": "Bob likes jazz"})
            assert refused.is_error, refused
            assert text(refused).startswith("error: subagent:researcher is a sub-agent"), text(refused)
            groups = data(await s.call_tool("recall", {"query": "green tea"}))
            assert groups, "a sub-agent can read"
            proposed = data(await s.call_tool("propose", {"text": "Bob likes jazz", "entities": ["person--bob"]}))
            assert proposed["number"] == 1 and proposed["status"] == "pending", proposed
            again = await s.call_tool("propose", {"text": "Bob likes jazz"})
            assert again.is_error and "already proposed" in text(again), text(again)


async def review_session():
    async with stdio_client(server()) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            waiting = data(await s.call_tool("pending", {"action": "list"}))
            assert [p["number"] for p in waiting] == [1], waiting
            assert waiting[0]["from"] == "researcher", waiting
            approved = data(await s.call_tool("pending", {"action": "approve", "number": 1}))
            assert approved["status"] == "committed", approved
            assert data(await s.call_tool("pending", {"action": "list"})) == []


async def main():
    await asyncio.wait_for(main_session(), 120)
    await asyncio.wait_for(subagent_session(), 120)
    await asyncio.wait_for(review_session(), 120)
    print("mcp client: all checks passed")


asyncio.run(main())
"#;

/// Fails with what to do when python3 or the MCP SDK is missing.
fn require_python_sdk() {
    let how = "run `.ci/run`, or `python3 -m pip install mcp==2.3.0`";
    let out = Command::new("python3")
        .args(["-c", "import importlib.metadata as m; print(m.version('mcp'))"])
        .output()
        .unwrap_or_else(|e| panic!("the MCP test needs python3 ({e}); {how}"));
    assert!(
        out.status.success(),
        "the MCP test needs the Python package `mcp`; {how}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn mcp_client_remembers_recalls_and_respects_roles_over_stdio() {
    require_python_sdk();
    let env = TestEnv::initialized();
    let commits = env.commit_count();
    let script = env.home.join("mcp_client.py");
    std::fs::write(&script, CLIENT).unwrap();
    let now = env.peek_now();
    let path = std::env::var("PATH").unwrap_or_default();
    let config = serde_json::json!({
        "bin": env!("CARGO_BIN_EXE_cogmem"),
        "workspace": env.root,
        "version": env!("CARGO_PKG_VERSION"),
        "env": {
            "PATH": path,
            "HOME": env.home,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": "/dev/null",
            "NO_COLOR": "1",
            "COGMEM_NOW": now,
            "COGMEM_ACTOR": "test-agent",
        },
    });
    // python3 keeps this process's environment (pyenv and virtualenvs need it); the server
    // gets only the environment above.
    let out = Command::new("python3")
        .arg(&script)
        .arg(config.to_string())
        .current_dir(&env.home)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the MCP client failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("all checks passed"), "{stdout}\n{stderr}");

    // `remember`, the sub-agent's proposal and its approval committed; the refused write left
    // nothing behind.
    assert_eq!(env.commit_count(), commits + 3);
    let authors = env.git(&["log", "-3", "--format=%an"]);
    assert_eq!(authors, "bot:commit-from:researcher\nsubagent:researcher\ntest-agent\n");
    assert!(env.read("memory/graph/entities/person--bob.md").contains("Bob likes jazz"));
    assert!(env.read(&format!("memory/episodes/{}.md", &now[..10])).contains("green tea"));
    env.assert_clean_tree();
}
