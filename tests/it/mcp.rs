//! `cogmem mcp`: the official MCP Python SDK (`mcp` 2.3.0) talks to the real binary over stdio,
//! as an MCP host would. The test fails, never skips, when python3 or the SDK is missing.

use std::process::Command;

use crate::common::TestEnv;

/// The client. Argument 1 is a JSON config: the binary, the workspace, the server's
/// environment and the version it must report. It raises (exit 1) on the first failed check.
const CLIENT: &str = r#"
import asyncio, json, pathlib, re, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

cfg = json.loads(sys.argv[1])
READ_TOOLS = {"hear", "recall", "search", "context", "show", "why", "status", "graph_show",
              "graph_neighbors", "graph_path", "graph_history", "graph_check", "graph_stats",
              "graph_export", "graph_relations", "reflect_status", "reflect_input", "identity_input",
              "identity_show", "audit", "propose", "flag_list"}
ALL_TOOLS = READ_TOOLS | {"remember", "touch", "forget", "restore", "pin", "unpin", "supersede",
                          "graph_rename", "graph_retype", "pending",
                          "reflect_request", "reflect_submit", "identity_submit", "decay"}


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
            # The episode, and the person it names, linked and created (issue 22).
            unit, person = report["written"]
            assert person["id"] == "entity:person--alice", report
            uid = unit["id"]

            groups = data(await s.call_tool("recall", {"query": "green tea"}))["groups"]
            assert uid in [h["id"] for g in groups for h in g["hits"]], groups

            # A request only the learned model hears says so, through MCP too (a dry run).
            heard = data(await s.call_tool("hear", {"dry_run": True, "message":
                "We picked Hetzner over AWS for the side project because of cost. "
                "Please record that decision."}))
            assert heard["trigger"] == "remember" and 60 <= heard["learned"] <= 100, heard
            plain = data(await s.call_tool("hear", {"dry_run": True, "message": "we use Postgres at work"}))
            assert plain["trigger"] is None and "learned" not in plain, plain

            pack = data(await s.call_tool("context", {"query": "green tea", "budget": 300}))
            assert pack["budget_tokens"] == 300, pack
            assert 0 < pack["used_tokens"] <= 300, pack
            assert "green tea" in pack["text"], pack["text"]

            assert tools["reflect_status"].annotations.read_only_hint is True
            cycle = data(await s.call_tool("reflect_status", {}))
            assert cycle["state"] == "idle" and cycle["next"] == ["cogmem reflect request"], cycle
            # The commands an agent may run now, as the tools that do them.
            assert cycle["next_tools"] == ["reflect_request"], cycle
            heard = data(await s.call_tool("hear", {"message": "Let's reflect on this week"}))
            assert "next: the `reflect_request` tool" in heard["action"]["message"], heard

            # A forget request heard: the clear best candidate comes with the tool call that
            # forgets it, beside the command a terminal would run.
            heard = data(await s.call_tool("hear", {"message": "forget that Alice prefers green tea over coffee"}))
            action = heard["action"]
            assert action["type"] == "confirm_forget" and action["command"], heard
            best = action["candidates"][0]["id"]
            assert action["call"] == {"tool": "forget",
                                      "arguments": {"id": best, "confirm": True}}, heard

            asked = await s.call_tool("forget", {"id": uid})
            described = data(asked)
            assert [c["id"] for c in described["candidates"]] == [uid], described
            assert described["forgotten"] == [], described
            assert "confirm=true" in text(asked, 1), text(asked, 1)
            groups = data(await s.call_tool("recall", {"query": "green tea"}))["groups"]
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
            groups = data(await s.call_tool("recall", {"query": "green tea"}))["groups"]
            assert groups, "a sub-agent can read"
            proposed = data(await s.call_tool("propose", {"text": "Bob likes jazz", "entities": ["person--bob"]}))
            assert proposed["number"] == 1 and proposed["status"] == "pending", proposed
            again = await s.call_tool("propose", {"text": "Bob likes jazz"})
            assert again.is_error and "already proposed" in text(again), text(again)
            # Hints and answers name only the tools this server lists.
            forget = await s.call_tool("hear", {"message": "forget that Alice prefers green tea over coffee"})
            assert "call" not in data(forget)["action"], text(forget)
            reflect = await s.call_tool("hear", {"message": "Let's reflect on this week"})
            cycle = await s.call_tool("reflect_status", {})
            assert data(cycle)["next_tools"] == [], text(cycle)
            for said in [again, forget, reflect, cycle]:
                for tool in re.findall(r"the `(\w+)` tool", text(said)):
                    assert tool in READ_TOOLS, (tool, text(said))


async def review_session():
    async with stdio_client(server()) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            waiting = data(await s.call_tool("pending", {"action": "list"}))["proposals"]
            assert [p["number"] for p in waiting] == [1], waiting
            # The outputSchema names every member of the answer, `show`'s too.
            tools = {t.name: t for t in (await s.list_tools()).tools}
            shown = data(await s.call_tool("pending", {"action": "show", "number": 1}))
            props = tools["pending"].output_schema["properties"]
            assert shown["content"] and set(shown) <= set(props), sorted(set(shown) - set(props))
            assert waiting[0]["from"] == "researcher", waiting
            approved = data(await s.call_tool("pending", {"action": "approve", "number": 1}))
            assert approved["status"] == "committed", approved
            assert data(await s.call_tool("pending", {"action": "list"})) == {"proposals": []}


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

/// The start the small MCP client scripts share: the imports, the configuration
/// [`run_client`] passes, `server(*args, **env)` (a server on the workspace with more
/// arguments and environment variables than the sealed ones), `session(…)` (a client session
/// with it, initialized) and `run(checks)` (runs the coroutine within two minutes, then says
/// all checks passed).
pub(crate) const CLIENT_PRELUDE: &str = r#"
import asyncio, contextlib, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

cfg = json.loads(sys.argv[1])


def server(*extra, **env):
    return StdioServerParameters(command=cfg["bin"],
        args=["mcp", "--workspace", cfg["workspace"], *extra], env={**cfg["env"], **env})


@contextlib.asynccontextmanager
async def session(*extra, **env):
    async with stdio_client(server(*extra, **env)) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            yield s


def run(checks):
    asyncio.run(asyncio.wait_for(checks(), 120))
    print("all checks passed")
"#;

/// Runs a Python MCP client script against the real binary on `env`'s workspace, with the
/// sealed environment (COGMEM_ACTOR=test-agent), checks it passed and returns its stdout.
pub(crate) fn run_client(env: &TestEnv, name: &str, script: &str) -> String {
    require_python_sdk();
    let path = env.home.join(name);
    std::fs::write(&path, script).unwrap();
    let now = env.peek_now();
    let config = serde_json::json!({
        "bin": env!("CARGO_BIN_EXE_cogmem"),
        "workspace": env.root,
        "version": env!("CARGO_PKG_VERSION"),
        "env": {
            "PATH": std::env::var("PATH").unwrap_or_default(),
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
        .arg(&path)
        .arg(config.to_string())
        .current_dir(&env.home)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the MCP client failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("all checks passed"), "{stdout}\n{stderr}");
    stdout.into_owned()
}

#[test]
fn mcp_client_remembers_recalls_and_respects_roles_over_stdio() {
    let env = TestEnv::initialized();
    let commits = env.commit_count();
    let now = env.peek_now();
    run_client(&env, "mcp_client.py", CLIENT);

    // `remember`, the sub-agent's proposal and its approval committed; the refused write left
    // nothing behind.
    assert_eq!(env.commit_count(), commits + 3);
    let authors = env.git(&["log", "-3", "--format=%an"]);
    assert_eq!(authors, "bot:commit-from:researcher\nsubagent:researcher\ntest-agent\n");
    assert!(env.read("memory/graph/entities/person--bob.md").contains("Bob likes jazz"));
    assert!(env.read(&format!("memory/episodes/{}.md", &now[..10])).contains("green tea"));
    env.assert_clean_tree();
}

/// The limits client: every tool refuses an unknown argument, a request over 16 MiB or nested
/// 200 levels deep is answered with a JSON-RPC error carrying its id, the server keeps serving
/// after each, and a sub-agent cannot propose under another name.
const LIMITS_CLIENT: &str = r#"
import asyncio, json, sys
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

cfg = json.loads(sys.argv[1])


def server(*extra):
    return StdioServerParameters(
        command=cfg["bin"], args=["mcp", "--workspace", cfg["workspace"], *extra], env=cfg["env"])


def text(result, i=0):
    return result.content[i].text


async def refused(call, code, words):
    try:
        result = await asyncio.wait_for(call, 60)
    except MCPError as e:
        assert e.code == code and words in e.message, (e.code, e.message)
        return
    raise AssertionError(f"answered without an error: {result}")


async def main_session():
    async with stdio_client(server()) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            tools = (await s.list_tools()).tools
            assert len(tools) == 36, [t.name for t in tools]
            for t in tools:
                # A tool error (isError) by MCP 2025-11-25; older SDKs may raise -32602 instead.
                try:
                    r = await asyncio.wait_for(s.call_tool(t.name, {"zz_not_an_argument": 1}), 60)
                    assert r.is_error and "unknown field `zz_not_an_argument`" in text(r), (t.name, r)
                except MCPError as e:
                    assert e.code == -32602 and "unknown field" in e.message, (t.name, e.message)
            big = "a" * (17 * 1024 * 1024)
            await refused(s.call_tool("remember", {"text": big}), -32600, "at most 16777216 bytes")
            deep = "x"
            for _ in range(200):
                deep = [deep]
            await refused(s.call_tool("remember", {"text": "x", "tags": deep}), -32600,
                          "nested deeper than 64 levels")
            # JSON Schema's `integer` holds 1.0 (Python hosts write floats); 1.5 is refused
            # naming the argument.
            st = await s.call_tool("status", {"commits": 1.0})
            assert not st.is_error and len(json.loads(text(st))["recent_commits"]) == 1, text(st)
            pack = await s.call_tool("context", {"budget": 300.0})
            assert not pack.is_error and json.loads(text(pack))["budget_tokens"] == 300, text(pack)
            half = await s.call_tool("recall", {"query": "tea", "limit": 1.5})
            assert half.is_error and "limit: 1.5 is not a whole number" in text(half), text(half)
            # A query is held to the text limit (`limits.text_bytes`, 64 KiB), naming it.
            for name, args in [("search", {}), ("recall", {}), ("context", {"budget": 100})]:
                long = await s.call_tool(name, {"query": "tea " * 20000, **args})
                assert long.is_error and text(long).startswith(
                    "error: query: the text is 80000 bytes; the limit is 65536 bytes"), text(long)
            status = await asyncio.wait_for(s.call_tool("reflect_status", {}), 60)
            assert not status.is_error and json.loads(text(status))["state"] == "idle", status


async def subagent_session():
    async with stdio_client(server("--role", "subagent", "--agent", "scout")) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            forged = await s.call_tool("propose", {"text": "Alice moved to Oslo", "from": "main"})
            assert forged.is_error, forged
            assert text(forged).startswith(
                "error: subagent:scout may propose only as itself, not as `main`"), text(forged)
            own = await s.call_tool("propose", {"text": "Alice moved to Oslo", "from": "scout"})
            assert not own.is_error, text(own)


async def main():
    await asyncio.wait_for(main_session(), 240)
    await asyncio.wait_for(subagent_session(), 120)
    print("mcp limits client: all checks passed")


asyncio.run(main())
"#;

// See: issue 16
#[test]
fn issue_16_mcp_refuses_unknown_arguments_oversize_and_too_deep_requests_and_forged_proposers() {
    let env = TestEnv::initialized();
    let head = env.head();
    run_client(&env, "mcp_limits.py", LIMITS_CLIENT);
    // Only the sub-agent's own proposal was committed.
    assert_eq!(env.git(&["log", "-1", "--format=%an"]), "subagent:scout\n");
    assert_eq!(env.git(&["rev-parse", "HEAD~1"]).trim(), head);
    env.assert_clean_tree();
}

/// Reads the server's answers line by line on a thread, so that a missing answer fails the
/// test after a timeout instead of hanging it.
fn answers(stdout: std::process::ChildStdout) -> std::sync::mpsc::Receiver<serde_json::Value> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            let v = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if tx.send(v).is_err() {
                return;
            }
        }
    });
    rx
}

/// `cogmem mcp` driven line by line, past the initialize handshake.
pub(crate) struct RawServer {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    rx: std::sync::mpsc::Receiver<serde_json::Value>,
}

impl RawServer {
    pub(crate) fn start(env: &TestEnv) -> Self {
        let mut child = env
            .run(["mcp"])
            .into_command()
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("cogmem mcp starts");
        let stdin = child.stdin.take();
        let rx = answers(child.stdout.take().unwrap());
        let mut server = Self { child, stdin, rx };
        server.send(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#);
        assert_eq!(server.next()["id"], 1);
        server.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    /// The server's process id.
    #[cfg(feature = "timings")] // for search_scan's tests
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(crate) fn send(&mut self, line: &[u8]) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("open");
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    pub(crate) fn next(&self) -> serde_json::Value {
        self.rx.recv_timeout(std::time::Duration::from_secs(60)).expect("an answer")
    }

    /// Closes stdin, checks that the server exits 0, and returns what it may still send.
    pub(crate) fn close(mut self) -> std::sync::mpsc::Receiver<serde_json::Value> {
        drop(self.stdin.take());
        assert!(self.child.wait().unwrap().success());
        self.rx
    }
}

// See: issue 16
#[test]
fn issue_16_mcp_answers_every_malformed_line_with_a_json_rpc_error_and_keeps_serving() {
    let env = TestEnv::initialized();
    let mut server = RawServer::start(&env);

    let error = |v: serde_json::Value| (v["id"].clone(), v["error"]["code"].as_i64().unwrap());
    let null = serde_json::Value::Null;
    // Not JSON: a parse error, id null.
    server.send(b"this is not json");
    assert_eq!(error(server.next()), (null.clone(), -32700));
    // Cut short: still a parse error, with the id read from the top level.
    server.send(b"{\"jsonrpc\":\"2.0\",\"id\":2,");
    assert_eq!(error(server.next()), (2.into(), -32700));
    // JSON, but not a request: invalid request, with the id when there is one.
    server.send(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"x"}"#);
    assert_eq!(error(server.next()), (3.into(), -32600));
    server.send(b"[1,2,3]");
    assert_eq!(error(server.next()), (null.clone(), -32600));
    // Nested 300 levels deep, past serde_json's own limit.
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"search","arguments":{{"query":{}1{}}}}}}}"#,
        "[".repeat(300),
        "]".repeat(300)
    );
    server.send(deep.as_bytes());
    assert_eq!(error(server.next()), ("deep".into(), -32600));
    // Over 16 MiB, and a line with no end in sight is answered before it ends.
    let mut big = br#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"remember","arguments":{"text":""#.to_vec();
    big.resize(17 * 1024 * 1024, b'a');
    big.extend_from_slice(br#""}}}"#);
    server.send(&big);
    let v = server.next();
    assert_eq!(error(v.clone()), (4.into(), -32600));
    assert!(v["error"]["message"].as_str().unwrap().contains("at most 16777216 bytes"), "{v}");
    // A malformed notification gets no answer; the next request is served as usual.
    server.send(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#);
    server.send(br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"reflect_status","arguments":{}}}"#);
    let v = server.next();
    assert_eq!(v["id"], 5, "{v}");
    assert_eq!(v["result"]["isError"], false, "{v}");
    let rx = server.close();
    assert!(rx.recv_timeout(std::time::Duration::from_secs(5)).is_err(), "no answer left over");
}

/// A request holding half of a cut emoji (`"\ud83d"`, as JavaScript's `JSON.stringify` writes
/// it) is served; one with a byte that is not UTF-8 gets its parse error with its id; one
/// whose params do not fit its method gets `-32602` naming the member, not "method not found".
#[test]
fn mcp_reads_lone_surrogates_and_answers_bad_bytes_and_bad_params_with_the_id() {
    let env = TestEnv::initialized();
    let mut server = RawServer::start(&env);
    let error = |v: &serde_json::Value| {
        (v["id"].clone(), v["error"]["code"].as_i64(), v["error"]["message"].clone())
    };
    server.send(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"tea \ud83d"}}}"#);
    let v = server.next();
    assert_eq!((v["id"].clone(), v["result"]["isError"].clone()), (3.into(), false.into()), "{v}");
    server.send(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{\"query\":\"caf\xe9\"}}}");
    let v = server.next();
    assert_eq!((v["id"].clone(), v["error"]["code"].as_i64()), (4.into(), Some(-32700)), "{v}");
    let cases: [(&[u8], &str); 5] = [
        (
            br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"search","arguments":"tea"}}"#,
            "invalid params: tools/call: `arguments` must be an object, not a string",
        ),
        (
            br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"arguments":{"query":"tea"}}}"#,
            "invalid params: tools/call: `name` is missing",
        ),
        (
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5}}"#,
            "invalid params: tools/call: `name` must be a string, not a number",
        ),
        (
            br#"{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":5}}"#,
            "invalid params: resources/read: `uri` must be a string, not a number",
        ),
        (
            br#"{"jsonrpc":"2.0","id":9,"method":"prompts/get","params":{}}"#,
            "invalid params: prompts/get: `name` is missing",
        ),
    ];
    for (id, (line, message)) in (5..).zip(cases) {
        server.send(line);
        let v = server.next();
        assert_eq!(error(&v), (id.into(), Some(-32602), message.into()), "{v}");
    }
    let rx = server.close();
    assert!(rx.recv_timeout(std::time::Duration::from_secs(5)).is_err(), "no answer left over");
}

/// The tools every server lists; a sub-agent's server lists only the reading ones and
/// `propose`. Kept in step with `mcp --help` and docs/cli.md by
/// `issue_17_mcp_help_docs_and_tools_list_name_the_same_tools`.
const PARITY_CLIENT: &str = r###"
import asyncio, json, re, subprocess, sys
import jsonschema
from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

cfg = json.loads(sys.argv[1])
WS = cfg["workspace"]
WRITING = {"remember", "touch", "forget", "restore", "pin", "unpin", "supersede", "graph_rename",
           "graph_retype", "pending",
           "reflect_request", "reflect_submit", "identity_submit", "decay"}


def server(*extra):
    return StdioServerParameters(command=cfg["bin"], args=["mcp", "--workspace", WS, *extra],
                                 env=cfg["env"])


def cli(*args):
    out = subprocess.run([cfg["bin"], "--workspace", WS, *args], env=cfg["env"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


async def ok(s, tools, name, args):
    """Calls a tool; checks its structured content against its outputSchema and its text."""
    r = await s.call_tool(name, args)
    assert not r.is_error, (name, r.content[0].text)
    assert isinstance(r.structured_content, dict), (name, r)
    jsonschema.validate(r.structured_content, tools[name].output_schema)
    extra = set(r.structured_content) - set(tools[name].output_schema["properties"])
    assert not extra, (name, sorted(extra))
    assert json.loads(r.content[0].text) == r.structured_content, name
    return r.structured_content


async def failed(s, name, args, words):
    """Calls a tool that must fail; its hint names tools, never a command a tool does."""
    r = await s.call_tool(name, args)
    assert r.is_error, (name, r)
    t = r.content[0].text
    assert t.startswith("error: ") and words in t, (name, t)
    for m in re.finditer(r"`cogmem [^`]*`", t):
        assert t[m.end():].startswith(" (ask the user to run it in a terminal)"), t
    return t


async def main_session():
    async with stdio_client(server()) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            tools = {t.name: t for t in (await s.list_tools()).tools}
            print("TOOLS " + json.dumps(sorted(tools)))
            print("READONLY " + json.dumps(sorted(n for n, t in tools.items()
                                                  if t.annotations.read_only_hint)))
            for t in tools.values():
                a = t.annotations
                assert t.title and a is not None, t
                assert None not in (a.read_only_hint, a.destructive_hint, a.idempotent_hint), t
                assert a.open_world_hint is False, t
                assert a.read_only_hint == (t.name not in WRITING | {"hear", "propose"}), t.name
                assert t.output_schema["type"] == "object", t.name
                jsonschema.Draft202012Validator.check_schema(t.output_schema)

            # remember takes every option of the command line.
            proc = await ok(s, tools, "remember", {
                "text": "Deploy Atlas\nRun migrations\nRestart the app", "stores": ["procedural"],
                "title": "Shipping Atlas"})
            assert proc["written"][0]["id"] == "procedure:shipping-atlas", proc
            core = await ok(s, tools, "remember", {
                "text": "Atlas ships on Fridays", "stores": ["core"], "section": "critical-facts"})
            assert "Atlas ships on Fridays" in open(f"{WS}/MEMORY.md").read()
            ep = await ok(s, tools, "remember", {
                "text": "We chose Postgres for Atlas", "type": "decision", "at": "2026-11-30 14:05",
                "tags": ["db"], "confidence": "medium"})
            assert ep["written"][0]["id"] == "episode:2026-11-30:14:05", ep
            assert "## 14:05 | decision | confidence:medium | tags:[db]" in open(
                f"{WS}/memory/episodes/2026-11-30.md").read()
            await ok(s, tools, "remember", {
                "text": "Alice works on Atlas", "entities": ["person--alice", "project--atlas"],
                "relations": ["person--alice|works-on|project--atlas"]})
            routed = await ok(s, tools, "remember", {"text": "Zeus replaces Atlas", "routing": json.dumps(
                {"store": "semantic", "entities": [{"name": "Zeus", "type": "project"}], "tags": [],
                 "confidence": "high", "core_update": False, "summary": "Zeus replaces Atlas."})})
            assert routed["written"][0]["id"] == "entity:project--zeus", routed
            # The routing answer decides the store, the entities, the tags…: giving them too
            # is refused, as the command line refuses it, rather than dropped.
            await failed(s, "remember", {"text": "Hera replaces Zeus", "stores": ["core"],
                                         "tags": ["t1"], "type": "decision",
                                         "routing": json.dumps({"store": "episodic"})},
                         "error: `routing` cannot be given with `stores`, `tags`, `type`: the "
                         "routing answer decides them")
            await failed(s, "remember", {"text": "x", "at": "someday"}, "someday")

            uid = ep["written"][0]["id"]
            shown = await ok(s, tools, "show", {"id": uid})
            assert "Postgres" in shown["unit"]["text"], shown
            assert (await ok(s, tools, "pin", {"id": uid}))["pinned"] is True
            assert (await ok(s, tools, "why", {"id": uid}))["inputs"]["pinned"] is True
            assert (await ok(s, tools, "unpin", {"id": uid}))["pinned"] is False
            await ok(s, tools, "forget", {"id": uid, "confirm": True})
            await failed(s, "pin", {"id": "episode:1999-01-01:00:00"}, "episode:1999-01-01:00:00")
            restored = await ok(s, tools, "restore", {"id": uid})
            assert restored["id"] == uid, restored
            groups = (await ok(s, tools, "recall", {"query": "Postgres"}))["groups"]
            assert uid in [h["id"] for g in groups for h in g["hits"]], groups
            hits = (await ok(s, tools, "search", {"query": "Postgres"}))["hits"]
            assert uid in [h["id"] for h in hits], hits
            plain = await ok(s, tools, "search", {"query": "Postgres"})
            assert "reading" not in plain, plain
            explained = await ok(s, tools, "search", {"query": "When did we pick Postgres?", "explain": True})
            assert explained["reading"]["wants"] == "time", explained
            assert explained["reading"]["people"] == ["Postgres"], explained
            assert "postgr" in explained["reading"]["terms"], explained

            st = await ok(s, tools, "status", {"commits": 2})
            assert len(st["recent_commits"]) == 2, st
            assert st["open_flags"] == 0, st
            assert (await ok(s, tools, "flag_list", {"all": True}))["flags"] == []
            alice = await ok(s, tools, "graph_show", {"entity": "person--alice"})
            assert any(l["relation"] == "works-on" for l in alice["links"]), alice
            assert alice["forgotten"] is False, alice
            await failed(s, "graph_show", {"entity": "person--alice", "as_of": "soon"},
                         "as_of: cannot read \"soon\" as a date")
            # Named as the tool's argument, not as the CLI's `--at`.
            await failed(s, "remember", {"text": "x", "at": "soonish"},
                         "error: at: cannot read \"soonish\" as a date")
            t = await failed(s, "remember", {"text": "x", "stores": ["core"], "tags": ["a"]},
                             "error: tags applies only to the episodic, semantic or vault store")
            assert "hint: add `episodic` to `stores`, or drop `tags`" in t, t
            t = await failed(s, "remember", {"text": "x", "title": "T"},
                             "error: title applies only to the procedural or vault store")
            assert "--" not in t, t
            ns = await ok(s, tools, "graph_neighbors", {"entity": "person--alice", "as_of": "2026-12-01"})
            assert "project--atlas" in [n["id"] for n in ns["neighbors"]], ns
            path = await ok(s, tools, "graph_path", {"from": "person--alice", "to": "project--atlas"})
            assert [p["id"] for p in path["path"]] == ["person--alice", "project--atlas"], path
            assert not any(p["forgotten"] for p in path["path"]), path
            assert (await ok(s, tools, "touch", {"id": uid}))["id"] == uid
            history = await ok(s, tools, "graph_history", {"entity": "person--alice"})
            assert history["node"]["id"] == "person--alice", history
            assert isinstance((await ok(s, tools, "graph_check", {}))["findings"], list)
            assert (await ok(s, tools, "graph_stats", {}))["nodes"] >= 3
            mermaid = await ok(s, tools, "graph_export", {"format": "mermaid", "around": "person--alice"})
            assert "works-on" in mermaid["text"], mermaid
            await failed(s, "graph_export", {"format": "png"}, "png")
            sup = await ok(s, tools, "supersede", {"old": "project--atlas", "by": "project--zeus",
                                                   "reason": "renamed"})
            assert sup["commit"], sup
            ren = await ok(s, tools, "graph_rename", {"old": "project--zeus", "new": "project--zeus-app"})
            assert ren["new"] == "project--zeus-app" and ren["commit"], ren
            await failed(s, "graph_rename", {"old": "project--zeus-app", "new": "person--alice"},
                         "already exists")
            ret = await ok(s, tools, "graph_retype", {"entity": "project--zeus-app", "type": "tool"})
            assert ret["new"] == "tool--zeus-app" and ret["old"] == "project--zeus-app", ret
            audit = await ok(s, tools, "audit", {"action": "create", "file": "memory/procedures",
                                                 "actor": "test-agent"})
            assert [l["file"] for l in audit["lines"]] == ["memory/procedures/shipping-atlas.md"], audit
            await failed(s, "audit", {"action": "teleport"}, "teleport")
            dry = await ok(s, tools, "decay", {"dry_run": True})
            assert dry["dry_run"] is True and dry["commit"] is None, dry

            # Reflection: the agent's steps are tools; the person's are not.
            await failed(s, "reflect_input", {}, "reflect")
            t = await failed(s, "reflect_request", {"extra": 5}, "error: extra needs a reason")
            assert "hint: give `extra_reason` too, or drop `extra`" in t, t
            req = await ok(s, tools, "reflect_request", {"extra": 100, "extra_reason": "busy"})
            assert req["state"] == "awaiting_decision", req
            try:
                await s.get_prompt("reflect")
                raise AssertionError("the reflect prompt before the decision")
            except MCPError as e:
                assert "out of order" in e.message, e.message
            cli("--actor", "user:ann", "reflect", "decide", "approve")
            bundle = await ok(s, tools, "reflect_input", {})
            prompts = {p.name: p for p in (await s.list_prompts()).prompts}
            assert set(prompts) == {"reflect", "consolidate_identity"}, prompts
            assert all(p.title and p.description for p in prompts.values()), prompts
            prompt = await s.get_prompt("reflect")
            [message] = prompt.messages
            assert message.role == "user" and message.content.text == bundle["text"]
            assert bundle["text"] == cli("reflect", "input"), "the prompt is the command's text"
            sub = await ok(s, tools, "reflect_submit", {"text": "Just thinking.\n"})
            assert sub["commit"], sub
            await failed(s, "identity_input", {}, "consolidat")
            await failed(s, "identity_show", {}, "consolidat")
            await failed(s, "identity_submit", {"text": "x"}, "consolidat")
            try:
                await s.get_prompt("consolidate_identity")
                raise AssertionError("the consolidation prompt when none is due")
            except MCPError as e:
                assert e.message.startswith("error: "), e.message

            # Resources: the files the skill loads, and every memory by id.
            uris = {r.uri for r in (await s.list_resources()).resources}
            for rel in ["MEMORY.md", "IDENTITY.md", "SOUL.md", "memory/meta/reflection-log.md",
                        "memory/meta/reward-log.md", "memory/meta/evolution.md"]:
                assert f"cogmem://{rel}" in uris, (rel, sorted(uris))
                [c] = (await s.read_resource(f"cogmem://{rel}")).contents
                assert c.text == open(f"{WS}/{rel}").read(), rel
            [template] = (await s.list_resource_templates()).resource_templates
            assert template.uri_template == "cogmem://memory/{id}", template
            [c] = (await s.read_resource(f"cogmem://memory/{uid}")).contents
            assert "We chose Postgres for Atlas" in c.text and c.mime_type == "text/markdown", c
            try:
                await s.read_resource("cogmem://memory/episode:1999-01-01:00:00")
                raise AssertionError("an unknown id read")
            except MCPError as e:
                assert "no memory has the id" in e.message, e.message


async def subagent_session():
    async with stdio_client(server("--actor", "subagent:scout")) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            tools = {t.name: t for t in (await s.list_tools()).tools}
            print("SUBAGENT " + json.dumps(sorted(tools)))
            assert all(t.annotations.read_only_hint or t.name in ("hear", "propose")
                       for t in tools.values()), sorted(tools)
            for name in ["restore", "decay", "reflect_request", "supersede"]:
                await failed(s, name, {}, "is a sub-agent")
            await ok(s, tools, "status", {})


async def main():
    await asyncio.wait_for(main_session(), 300)
    await asyncio.wait_for(subagent_session(), 120)
    print("mcp parity client: all checks passed")


asyncio.run(main())
"###;

/// The names on the line of `stdout` that starts with `tag `.
fn listed_names(stdout: &str, tag: &str) -> std::collections::BTreeSet<String> {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{tag} ")))
        .unwrap_or_else(|| panic!("no {tag} line in:\n{stdout}"));
    serde_json::from_str(line).unwrap()
}

// See: issue 17
#[test]
fn issue_17_mcp_offers_every_agent_command_with_schemas_resources_and_prompts() {
    let env = TestEnv::initialized();
    let stdout = run_client(&env, "mcp_parity.py", PARITY_CLIENT);
    let all = listed_names(&stdout, "TOOLS");
    let sub = listed_names(&stdout, "SUBAGENT");
    let mut want = listed_names(&stdout, "READONLY");
    want.extend(["hear".to_owned(), "propose".to_owned()]);
    assert!(want.is_subset(&all) && want.len() < all.len(), "{want:?}");
    assert_eq!(sub, want, "a sub-agent sees the reading tools and propose");
    assert!(sub.contains("propose") && !sub.contains("remember"), "{sub:?}");
    assert!(env.read("memory/meta/pending-reflection.md").contains("Just thinking."));
    assert!(env.read("memory/graph/entities/project--atlas.md").contains("superseded"));
    env.assert_clean_tree();
}

/// Prints the tools a main server lists.
const LIST_CLIENT: &str = r#"
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

cfg = json.loads(sys.argv[1])


async def main():
    params = StdioServerParameters(command=cfg["bin"], args=["mcp", "--workspace", cfg["workspace"]],
                                   env=cfg["env"])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            print("TOOLS " + json.dumps(sorted(t.name for t in (await s.list_tools()).tools)))
    print("mcp list client: all checks passed")


asyncio.run(asyncio.wait_for(main(), 120))
"#;

/// The tool names `mcp --help` lists after "Tools:", up to the first period.
fn help_tools(help: &str) -> std::collections::BTreeSet<String> {
    let from = help.find("Tools:").expect("`mcp --help` lists its tools after `Tools:`") + 6;
    let end = help[from..].find('.').expect("the tool list ends with a period") + from;
    help[from..end].split([',', ' ', '\n']).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

/// The tool names in the first column of docs/cli.md's MCP tools table.
fn doc_tools(doc: &str) -> std::collections::BTreeSet<String> {
    let from = doc.find("\n## mcp\n").expect("docs/cli.md has an `## mcp` section");
    let section = &doc[from..];
    let tools = section.find("**Tools.**").expect("the MCP section has **Tools.**");
    let end = section.find("**Resources.**").expect("the MCP section has **Resources.**");
    section[tools..end]
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once('`').map(|(name, _)| name.to_owned()))
        .collect()
}

// See: issue 17
#[test]
fn issue_17_mcp_help_docs_and_tools_list_name_the_same_tools() {
    let env = TestEnv::initialized();
    let help = env.run(["mcp", "--help"]).success().stdout;
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md"),
    )
    .unwrap();
    let listed = listed_names(&run_client(&env, "mcp_list.py", LIST_CLIENT), "TOOLS");
    assert_eq!(help_tools(&help), listed, "`mcp --help` and tools/list differ");
    assert_eq!(doc_tools(&doc), listed, "docs/cli.md's MCP section and tools/list differ");
}
/// A sub-agent cannot be named as a person or a bot (`--agent user:alice`): its proposals would
/// be listed as theirs.
#[test]
fn mcp_refuses_a_sub_agent_named_as_another_kind_of_actor() {
    let env = TestEnv::initialized();
    let cases: [(&[&str], &str); 3] = [
        (&["mcp", "--role", "subagent", "--agent", "user:alice"], "user:alice"),
        (&["mcp", "--role", "subagent", "--agent", "Bot:x"], "Bot:x"),
        (&["--actor", "subagent:system:init", "mcp"], "system:init"),
    ];
    for (args, name) in cases {
        let out = env.run(args).output().code(1);
        assert!(
            out.stderr.starts_with(&format!("error: a sub-agent cannot be named `{name}`")),
            "{out}"
        );
        assert!(out.stderr.contains("hint: name the sub-agent by itself"), "{out}");
    }
}

/// `--role main --agent NAME` is refused, with what to pass, rather than serving every tool
/// to a named agent (it was a warning, and a main agent's server).
/// See: docs/decisions.md 2026-12-06, eleventh stop
#[test]
fn mcp_refuses_the_main_role_for_a_named_agent() {
    let env = TestEnv::initialized();
    let out = env.run(["mcp", "--role", "main", "--agent", "scout"]).output().code(1);
    assert_eq!(
        out.stderr,
        "error: `--agent scout` names a sub-agent, but `--role main` serves the main agent\n\n\
         hint: for a sub-agent pass `--agent scout` (it implies `--role subagent`); for the main \
         agent drop `--agent`\n"
    );
    assert!(out.stdout.is_empty(), "{out}");
}

/// A purge killed half-way is finished when the MCP server starts, so its writes go through.
// Kills a purge with COGMEM_CRASH_AT: needs the `crash-points` feature.
// See: issue 16
#[cfg(feature = "crash-points")]
#[test]
fn issue_16_the_mcp_server_finishes_an_interrupted_purge_when_it_starts() {
    let env = TestEnv::initialized();
    let text = "Shelf 4471-ochre-badger holds the spare map of the cellar";
    env.mutate(["remember", "--store", "core", text]);
    let killed = env
        .run(["forget", "--purge-text", text, "--yes"])
        .env("COGMEM_CRASH_AT", "purge-after-refs")
        .output();
    assert_ne!(killed.code, 0, "{killed}");
    assert!(env.path(".cogmem/purge.json").exists(), "the purge waits to be finished");
    let mut server = RawServer::start(&env);
    server.send(br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":{"text":"Bob moved to Lisbon"}}}"#);
    let v = server.next();
    assert_eq!(v["result"]["isError"], false, "{v}");
    server.close();
    assert!(!env.path(".cogmem/purge.json").exists(), "finished");
    let log = env.git(&["log", "--format=%s", "-3"]);
    assert!(log.contains("purged") && log.contains("Lisbon"), "{log}");
    assert!(!env.git(&["log", "-p", "--branches"]).contains("ochre-badger"));
    env.assert_clean_tree();
}

/// The reads client: `show`, `recall`, `context` and the memory's resource, then `touch`, on a
/// sub-agent's server (both ways of starting one) and then on the main agent's; it prints the
/// access log's new lines after each server.
const SUBAGENT_USES_CLIENT: &str = r#"
import asyncio, json, pathlib, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

cfg = json.loads(sys.argv[1])
ID = "{{ID}}"
LOG = pathlib.Path(cfg["workspace"]) / ".cogmem" / "access.log"


def server(*extra):
    return StdioServerParameters(
        command=cfg["bin"], args=["mcp", "--workspace", cfg["workspace"], *extra], env=cfg["env"])


def log():
    return LOG.read_text() if LOG.exists() else ""


async def reads(*extra):
    async with stdio_client(server(*extra)) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            for name, args in [("show", {"id": ID}), ("recall", {"query": "kiwi"}),
                               ("context", {"query": "kiwi", "budget": 500})]:
                r = await s.call_tool(name, args)
                assert not r.is_error and ID in r.content[0].text, (name, r.content[0].text)
            [c] = (await s.read_resource(f"cogmem://memory/{ID}")).contents
            assert "kiwi" in c.text, c
            return await s.call_tool("touch", {"id": ID})


async def main():
    for extra in [("--role", "subagent", "--agent", "scout"), ("--agent", "scout"),
                  ("--actor", "subagent:scout"), ()]:
        before = log()
        touched = await asyncio.wait_for(reads(*extra), 120)
        print(f"{' '.join(extra) or 'main'}: touch is_error={touched.is_error}")
        print(f"new uses: {log()[len(before):].count(ID)}")
    print("mcp uses client: all checks passed")


asyncio.run(main())
"#;

/// A sub-agent's reads record no uses, and its `touch` is refused, on every kind of sub-agent
/// server (`--agent NAME` alone is one: docs/decisions.md 2026-12-06, eleventh stop): reinforcing a memory is a write, which the next commit (the sub-agent's own
/// proposal, authored by it) folded into the tracked decay file. The main agent's same reads
/// are still recorded. See: docs/decisions.md 2026-12-06 (a sub-agent's reads record no uses)
#[test]
fn a_subagents_mcp_reads_record_no_uses_and_its_touch_is_refused() {
    let env = TestEnv::initialized();
    let out = env.mutate(["remember", "--json", "the kiwi fruit is ripe in March"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let id = v["written"][0]["id"].as_str().unwrap().to_owned();
    let stdout = run_client(&env, "mcp_uses.py", &SUBAGENT_USES_CLIENT.replace("{{ID}}", &id));
    let seen: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        seen,
        [
            "--role subagent --agent scout: touch is_error=True",
            "new uses: 0",
            "--agent scout: touch is_error=True",
            "new uses: 0",
            "--actor subagent:scout: touch is_error=True",
            "new uses: 0",
            "main: touch is_error=False",
            "new uses: 5",
            "mcp uses client: all checks passed",
        ],
        "{stdout}"
    );
    env.assert_clean_tree();
}
