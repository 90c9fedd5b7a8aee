//! Roles: who may write, and who is a person. Actor kinds are case-insensitive; a sub-agent may
//! only propose, whatever command it runs; `manual` is a person only at a terminal, so an agent
//! that names nobody is `agent:manual` and cannot approve.

use std::process::Command;

use crate::common::{TestEnv, normalize};

fn remember_id(env: &TestEnv, text: &str) -> String {
    let out = env.run(["remember", text, "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    v["written"][0]["id"].as_str().unwrap().to_owned()
}

// See: issue 16
#[test]
fn issue_16_actor_kinds_are_case_insensitive() {
    let env = TestEnv::initialized();
    let before = env.snapshot();
    for actor in ["SUBAGENT:x", "Subagent:x", "subAgent:x"] {
        let out = env.run(["--actor", actor, "remember", "We chose MySQL"]).output().code(4);
        assert!(
            out.stderr.starts_with("error: subagent:x is a sub-agent; sub-agents may only propose"),
            "{actor}: {out}"
        );
        let out =
            env.run(["remember", "We chose MySQL"]).env("COGMEM_ACTOR", actor).output().code(4);
        assert!(out.stderr.contains("subagent:x is a sub-agent"), "{actor}: {out}");
    }
    assert!(env.snapshot() == before, "a refused write changed nothing");
    // The kind is stored in lower case: the proposal is the sub-agent's.
    env.mutate(["--actor", "SubAgent:Scout", "propose", "We chose Postgres"]);
    let out = env.run(["pending", "list", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v[0]["from"], "Scout", "{v}");
    assert_eq!(env.git(&["log", "-1", "--format=%an"]), "subagent:Scout\n");
}

// See: issue 16
#[test]
fn issue_16_subagents_are_refused_every_write() {
    let env = TestEnv::initialized();
    let id = remember_id(&env, "Alice prefers green tea");
    env.mutate(["forget", "--id", &id, "--yes"]);
    let kept = remember_id(&env, "Bob plays the cello");
    let before = env.snapshot();
    let head = env.head();
    let writes: Vec<Vec<&str>> = vec![
        vec!["decay"],
        vec!["doctor", "--fix"],
        vec!["init", "--agents-md"],
        vec!["pin", &kept],
        vec!["restore", &id],
        vec!["forget", "--id", &kept, "--yes"],
        vec!["forget", "--purge", &kept, "--yes"],
        vec!["sync"],
        vec!["graph", "rebuild"],
        vec!["audit", "compact", "--older-than", "1d"],
        vec!["reflect", "request"],
    ];
    for args in &writes {
        for actor in ["subagent:scout", "Subagent:scout"] {
            let out = env.run(args).env("COGMEM_ACTOR", actor).output().code(4);
            assert!(
                out.stderr.starts_with("error: subagent:scout is a sub-agent; sub-agents may only"),
                "{args:?} as {actor}: {out}"
            );
        }
    }
    assert_eq!(env.head(), head, "nothing was committed");
    assert!(env.snapshot() == before, "nothing was written");
    env.assert_clean_tree();
    // `init` in a new folder is refused before the folder is made.
    let out = env
        .run(["init", "fresh"])
        .current_dir_home()
        .env("COGMEM_ACTOR", "subagent:scout")
        .output()
        .code(4);
    assert!(out.stderr.contains("sub-agent"), "{out}");
    assert!(!env.home.join("fresh").exists(), "init made the folder");
    // Reads and proposals are still allowed.
    env.run(["--actor", "subagent:scout", "search", "cello"]).success();
    env.mutate(["--actor", "subagent:scout", "propose", "Bob plays the viola too"]);
}

// See: issue 16
#[test]
fn issue_16_a_subagent_proposes_only_as_itself() {
    let env = TestEnv::initialized();
    let head = env.head();
    let out = env
        .run(["--actor", "subagent:scout", "propose", "--from", "main", "Alice moved to Oslo"])
        .output()
        .code(4);
    assert_eq!(
        out.stderr,
        "error: subagent:scout may propose only as itself, not as `main`\n\nhint: leave out \
         `--from` (MCP: `from`): a sub-agent's proposals are always its own\n"
    );
    assert_eq!(env.head(), head);
    // Its own name is fine; the main agent may name the sub-agent it relays.
    env.mutate(["--actor", "subagent:scout", "propose", "--from", "scout", "Alice moved to Oslo"]);
    env.mutate(["propose", "--from", "helper", "Alice likes skiing"]);
}

/// A sub-agent cannot let a secret in: `propose --allow-secret` by a sub-agent committed the
/// credential into the pending file's history, and its approval, which trusts the check made
/// at proposing, wrote it into memory unscanned. Whether it is a secret is a person's call.
#[test]
fn a_subagent_cannot_allow_a_secret_into_its_proposal() {
    let env = TestEnv::initialized();
    let head = env.head();
    let token = format!("ghp_{}", "4bR7cT9dW2eX5fY8gZ1hA3iB6jC0kD4lE7mF");
    let text = format!("the CI token is {token}");
    let out =
        env.run(["--actor", "subagent:scout", "propose", "--allow-secret", &text]).output().code(4);
    assert!(
        out.stderr.starts_with(
            "error: subagent:scout is a sub-agent; only a person may let what looks like a \
             secret into memory\n"
        ),
        "{out}"
    );
    assert!(!out.stderr.contains(&token), "{out}");
    assert_eq!(env.head(), head);
    assert!(!env.read("memory/meta/pending-memories.md").contains(&token));
    // The main agent may still relay it, allowed, for the person to decide.
    env.mutate(["propose", "--from", "scout", "--allow-secret", &text]);
}

/// Runs `reflect request` so that a reward decision is due.
fn requested() -> TestEnv {
    let env = TestEnv::initialized();
    env.run(["remember", "Bob talked about the garden"]).success();
    env.run(["reflect", "request"]).success();
    env
}

// See: issue 16
#[test]
fn issue_16_the_default_actor_without_a_terminal_is_an_agent() {
    let env = requested();
    // Nobody named: stdin is not a terminal here, so the actor is `agent:manual`.
    env.run(["remember", "The build is green"]).env_remove("COGMEM_ACTOR").success();
    let last = env.audit_lines().pop().unwrap();
    assert!(last.contains(" | agent:manual | auto | "), "{last}");
    assert_eq!(env.git(&["log", "-1", "--format=%an"]), "agent:manual\n");
    // A reading command records no actor: no warning for an agent to read on every search.
    let out = env.run(["search", "build"]).env("COGMEM_ACTOR", "user:alice").success();
    assert!(!out.stderr.contains("COGMEM_ACTOR"), "{out}");
    let head = env.head();
    for (args, what) in [
        (vec!["reflect", "decide", "approve"], "decide a reward"),
        (vec!["--actor", "manual", "reflect", "decide", "approve"], "decide a reward"),
        (vec!["--actor", "MANUAL", "audit", "ack"], "acknowledge a critical-file change"),
        (vec!["audit", "ack"], "acknowledge a critical-file change"),
    ] {
        let out = env.run(&args).env_remove("COGMEM_ACTOR").output().code(4);
        assert_eq!(
            out.stderr,
            format!(
                "error: agent:manual is not a person; only the user (`user:NAME`, or `manual` at \
                 a terminal) may {what}\n\nhint: ask the user to run it at a terminal, or to \
                 name themselves on that one command with `--actor user:NAME`\n"
            ),
            "{args:?}"
        );
    }
    assert_eq!(env.head(), head, "nothing was decided");
    env.mutate(["--actor", "user:alice", "reflect", "decide", "approve"]);
    assert!(env.audit_lines().iter().any(|l| l.contains("user:alice")));
}

/// The MCP client (after [`crate::mcp::CLIENT_PRELUDE`]): `remember` on a server whose
/// environment names a person.
const PERSON_ENV_CLIENT: &str = r#"
async def checks():
    async with session(COGMEM_ACTOR="user:alice") as s:
        r = await s.call_tool("remember", {"text": "The deploy window is Tuesday"})
        assert not r.is_error, r.content[0].text

run(checks)
"#;

/// A person named by COGMEM_ACTOR (`user:NAME`, as the hints once recommended exporting) is
/// inherited by every agent the person starts: without a terminal it is left out with a
/// warning, so an agent's command and the MCP server commit as themselves and cannot approve.
/// `--actor user:NAME` on the one command still counts.
/// See: docs/decisions.md 2026-12-06, eleventh stop
#[test]
fn a_person_in_cogmem_actor_is_left_out_without_a_terminal() {
    let env = requested();
    let out = env.run(["remember", "The build is green"]).env("COGMEM_ACTOR", "user:alice");
    let out = out.success();
    assert!(
        out.stderr.starts_with(
            "warning: COGMEM_ACTOR=user:alice is ignored without a person at the terminal (agents, \
         hooks and the MCP server inherit the environment)\n\nhint: name yourself on your own \
         command instead: `--actor user:alice`\nremembered (commit "
        ),
        "{out}"
    );
    assert_eq!(env.git(&["log", "-1", "--format=%an"]), "agent:manual\n");
    let head = env.head();
    let out = env.run(["reflect", "decide", "approve"]).env("COGMEM_ACTOR", "USER:alice");
    let out = out.output().code(4);
    assert!(out.stderr.contains("error: agent:manual is not a person"), "{out}");
    assert_eq!(env.head(), head, "nothing was decided");

    let script = format!("{}{PERSON_ENV_CLIENT}", crate::mcp::CLIENT_PRELUDE);
    crate::mcp::run_client(&env, "person_env.py", &script);
    assert_eq!(env.git(&["log", "-1", "--format=%an"]), "agent:manual\n");
    env.assert_clean_tree();

    // Named on the command itself, the person is taken at their word, as before.
    env.run(["--actor", "user:alice", "reflect", "decide", "approve"])
        .env("COGMEM_ACTOR", "user:alice")
        .success();
    assert_eq!(env.git(&["log", "-1", "--format=%an"]), "user:alice\n");
}

/// Runs the binary with a pseudo-terminal as stdin (util-linux `script`), as a person at a
/// terminal would, without COGMEM_ACTOR.
fn at_terminal(env: &TestEnv, args: &str) -> String {
    let bin = env!("CARGO_BIN_EXE_cogmem");
    let out = Command::new("script")
        .args(["-qec", &format!("'{bin}' {args}"), "/dev/null"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &env.home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("NO_COLOR", "1")
        .env("COGMEM_NOW", env.peek_now())
        .current_dir(&env.root)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("`script` runs (util-linux; Debian package bsdutils)");
    let text = normalize(&String::from_utf8_lossy(&out.stdout), &env.home);
    assert!(out.status.success(), "{args}: {text}");
    text
}

// See: issue 16
#[test]
fn issue_16_manual_at_a_terminal_is_a_person() {
    let env = requested();
    at_terminal(&env, "reflect decide approve");
    let last = env.audit_lines().pop().unwrap();
    assert!(last.contains(" | manual | "), "{last}");
    env.assert_clean_tree();
}

// See: issue 16
#[test]
fn issue_16_lib_a_subagent_caller_is_refused_the_lock_but_may_propose() {
    use cogmem::audit::Actor;
    use cogmem::workspace::WorkspaceOptions;
    let env = TestEnv::new();
    let ws = env.lib_init();
    let caller = Some(Actor::parse("Subagent:Scout").unwrap());
    let ws = ws.with_options(WorkspaceOptions { caller, ..WorkspaceOptions::default() });
    let clock = crate::common::clock("2026-12-01T10:00:00Z");
    let head = env.head();
    // Both commit as system actors, so only the caller gate can refuse them.
    let refusals = [
        cogmem::ops::decay::run(&ws, false, &clock).map(|_| ()).unwrap_err(),
        cogmem::ops::doctor::fix(&ws, &clock).map(|_| ()).unwrap_err(),
    ];
    for e in refusals {
        assert_eq!(e.kind(), cogmem::ErrorKind::Conflict, "{e}");
        assert!(e.to_string().starts_with("subagent:Scout is a sub-agent"), "{e}");
    }
    assert_eq!(env.head(), head);
    let options =
        cogmem::ops::init::InitOptions { agents_md: true, workspace: ws.options().clone() };
    let e = cogmem::ops::init::init_with(&env.root, &clock, options).unwrap_err();
    assert_eq!(e.kind(), cogmem::ErrorKind::Conflict, "{e}");
    assert_eq!(env.head(), head);
    assert!(!env.root.join("AGENTS.md").exists());
    let from = cogmem::ops::propose::proposer(None, ws.options().caller.as_ref()).unwrap();
    let req = cogmem::ops::propose::ProposeRequest {
        text: "Alice likes tea".into(),
        from: from.unwrap(),
        store: None,
        entities: Vec::new(),
        relations: Vec::new(),
        confidence: None,
        core_worthy: false,
        trigger: "test".into(),
        allow_secret: false,
    };
    env.changes(|| cogmem::ops::propose::propose(&ws, &req, &clock).unwrap());
    assert_eq!(env.git(&["log", "-1", "--format=%an"]), "subagent:Scout\n");
}
