//! `cogmem setup HOST` on temporary home folders that already hold the hosts' configuration:
//! what is there stays, setup's entries go in once, `--dry-run` writes nothing, `--undo` gives
//! the files back, and a malformed file stops everything before any write. The README's host
//! section is checked against what setup really writes.

use std::path::{Path, PathBuf};

use crate::common::TestEnv;

/// Every file under `dir` (relative path, bytes), the workspace's `.git` left out.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() || e.file_type().is_symlink())
        .filter(|e| !e.path().components().any(|c| c.as_os_str() == ".git"))
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            (rel, std::fs::read(e.path()).unwrap_or_default())
        })
        .collect();
    out.sort();
    out
}

fn backups(dir: &Path) -> Vec<String> {
    files(dir).into_iter().map(|(p, _)| p).filter(|p| p.contains(".cogmem-backup-")).collect()
}

/// A home folder with a workspace at `~/agent-memory`.
fn home_with_workspace() -> (TestEnv, PathBuf) {
    let env = TestEnv::new();
    env.run(["init", "agent-memory"]).current_dir_home().success();
    let ws = env.home.join("agent-memory");
    (env, ws)
}

fn setup(env: &TestEnv, ws: &Path, args: &[&str]) -> crate::common::Output {
    let mut all = vec!["--workspace", ws.to_str().unwrap(), "setup"];
    all.extend_from_slice(args);
    env.run(all).current_dir_home().output()
}

fn write(env: &TestEnv, rel: &str, text: &str) {
    let path = env.home.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(env: &TestEnv, rel: &str) -> String {
    std::fs::read_to_string(env.home.join(rel)).unwrap()
}

fn json(env: &TestEnv, rel: &str) -> serde_json::Value {
    serde_json::from_str(&read(env, rel)).unwrap()
}

const CLAUDE_JSON: &str = r#"{
  "numStartups": 12,
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ]
    }
  },
  "projects": {}
}
"#;

const CLAUDE_SETTINGS: &str = r#"{
  "model": "opus",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo hello"
          }
        ]
      }
    ]
  }
}
"#;

const CODEX_TOML: &str = r#"# my Codex settings
model = "o3"   # the model I like

[mcp_servers.docs]
# the docs server
command = "npx"
args = ["-y", "docs-mcp"]

[features]
web_search = true
"#;

#[test]
fn setup_claude_code_keeps_other_servers_hooks_and_keys() {
    let (env, ws) = home_with_workspace();
    write(&env, ".claude.json", CLAUDE_JSON);
    write(&env, ".claude/settings.json", CLAUDE_SETTINGS);
    let out = setup(&env, &ws, &["claude-code"]).success();
    assert!(out.stderr.contains("updated [TMP]/.claude.json (mcp), backup in"), "{out}");

    let claude = json(&env, ".claude.json");
    assert_eq!(claude["numStartups"], 12);
    assert_eq!(claude["projects"], serde_json::json!({}));
    assert_eq!(claude["mcpServers"]["github"]["command"], "npx");
    let ours = &claude["mcpServers"]["cogmem"];
    assert_eq!(ours["command"], "cogmem");
    assert_eq!(ours["args"], serde_json::json!(["mcp", "--workspace", ws.to_str().unwrap()]));

    let settings = json(&env, ".claude/settings.json");
    assert_eq!(settings["model"], "opus");
    assert_eq!(settings["env"]["COGMEM_WORKSPACE"], ws.to_str().unwrap());
    let hooks = &settings["hooks"];
    assert_eq!(hooks["Stop"][0]["hooks"][0]["command"], "notify-send done");
    assert_eq!(hooks["SessionStart"][0]["matcher"], "startup");
    assert_eq!(hooks["SessionStart"][0]["hooks"][0]["command"], "echo hello");
    let command = format!("cogmem hook claude-code --workspace {}", ws.display());
    for event in ["SessionStart", "UserPromptSubmit", "PreCompact", "SessionEnd"] {
        let list = hooks[event].as_array().unwrap();
        let ours: Vec<_> = list
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap())
            .filter(|h| h["command"] == command.as_str())
            .collect();
        assert_eq!(ours.len(), 1, "{event}: {list:?}");
    }
    assert!(read(&env, ".claude/CLAUDE.md").contains("<!-- cogmem:memory-block:begin"));

    // Each changed file that existed has its backup, byte for byte.
    let backups = backups(&env.home);
    assert_eq!(backups.len(), 2, "{backups:?}");
    let settings_backup = backups.iter().find(|b| b.starts_with(".claude/settings.json")).unwrap();
    assert_eq!(read(&env, settings_backup), CLAUDE_SETTINGS);
    // Host configuration is not memory: the workspace has no new commit and no new file.
    let repo = git2::Repository::open(&ws).unwrap();
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    assert_eq!(walk.count(), 1, "setup committed to the workspace");
    let mut opts = git2::StatusOptions::new();
    opts.include_untracked(true).include_ignored(false);
    let dirty: Vec<_> = repo
        .statuses(Some(&mut opts))
        .unwrap()
        .iter()
        .map(|s| s.path().unwrap_or("?").to_owned())
        .collect();
    assert!(dirty.is_empty(), "setup left files in the workspace: {dirty:?}");
}

#[test]
fn setup_twice_changes_nothing_the_second_time() {
    let (env, ws) = home_with_workspace();
    write(&env, ".claude/settings.json", CLAUDE_SETTINGS);
    write(&env, ".codex/config.toml", CODEX_TOML);
    for host in ["claude-code", "codex", "cursor", "openclaw"] {
        setup(&env, &ws, &[host]).success();
        let before = files(&env.home);
        let out = setup(&env, &ws, &[host]).success();
        assert!(out.stderr.contains("already set up"), "{host}: {out}");
        assert_eq!(files(&env.home), before, "{host}: the second run changed files");
    }
}

/// A `timeout` the user deleted from cogmem's hook entry stays deleted on the next setup,
/// since another of its entries still has one. Deleting every one of them is kept too (they
/// came back: the twelfth stop's list), with a note saying how to get setup's, since an older
/// setup's file, before timeouts, looks the same. See: docs/decisions.md 2026-12-06, eleventh
/// and twelfth stops
#[test]
fn setup_respects_a_timeout_the_user_deleted() {
    let (env, ws) = home_with_workspace();
    setup(&env, &ws, &["claude-code"]).success();
    let timeout = |event: &str| {
        json(&env, ".claude/settings.json")["hooks"][event][0]["hooks"][0].get("timeout").cloned()
    };
    assert_eq!(timeout("PreCompact"), Some(serde_json::json!(120)));
    let mut settings = json(&env, ".claude/settings.json");
    let entry = &mut settings["hooks"]["PreCompact"][0]["hooks"][0];
    entry.as_object_mut().unwrap().remove("timeout");
    write(&env, ".claude/settings.json", &serde_json::to_string_pretty(&settings).unwrap());
    let out = setup(&env, &ws, &["claude-code"]).success();
    assert!(out.stderr.contains("already set up"), "{out}");
    assert_eq!(timeout("PreCompact"), None, "the user's deletion stays");
    assert_eq!(timeout("SessionEnd"), Some(serde_json::json!(60)));

    // Every timeout deleted (or an older setup's file, before timeouts): they stay deleted.
    let entry = &mut settings["hooks"]["SessionEnd"][0]["hooks"][0];
    entry.as_object_mut().unwrap().remove("timeout");
    write(&env, ".claude/settings.json", &serde_json::to_string_pretty(&settings).unwrap());
    let out = setup(&env, &ws, &["claude-code"]).success();
    assert_eq!(timeout("PreCompact"), None, "the user's deletion stays");
    assert_eq!(timeout("SessionEnd"), None, "the user's deletion stays");
    assert!(out.stderr.contains("without a `timeout`"), "{out}");
    assert!(out.stderr.contains("(PreCompact 120 s, SessionEnd 60 s)"), "{out}");
    assert!(
        out.stderr
            .contains("run `cogmem setup claude-code --undo`, then `cogmem setup claude-code`"),
        "{out}"
    );
    // As the note says: undo, then setup, writes them again.
    setup(&env, &ws, &["claude-code", "--undo"]).success();
    setup(&env, &ws, &["claude-code"]).success();
    assert_eq!(timeout("PreCompact"), Some(serde_json::json!(120)));
    assert_eq!(timeout("SessionEnd"), Some(serde_json::json!(60)));
}

#[test]
fn setup_dry_run_prints_a_diff_and_writes_nothing() {
    let (env, ws) = home_with_workspace();
    write(&env, ".claude/settings.json", CLAUDE_SETTINGS);
    write(&env, ".codex/config.toml", CODEX_TOML);
    let before = files(&env.home);
    let out = setup(&env, &ws, &["claude-code", "--dry-run"]).success();
    assert!(
        out.stdout.contains("--- /dev/null\n+++ [TMP]/.claude.json\n@@ -0,0 +1,13 @@\n+{\n"),
        "{out}"
    );
    assert!(
        out.stdout.contains("--- [TMP]/.claude/settings.json\n+++ [TMP]/.claude/settings.json\n")
    );
    assert!(out.stdout.contains(
        "+            \"command\": \"cogmem hook claude-code --workspace [TMP]/agent-memory\"\n"
    ));
    let out = setup(&env, &ws, &["codex", "--dry-run"]).success();
    assert!(out.stdout.contains("+[mcp_servers.cogmem]\n"), "{out}");
    assert!(
        out.stdout.contains(" [features]\n+codex_hooks = true # added by cogmem setup\n"),
        "{out}"
    );
    assert_eq!(files(&env.home), before, "--dry-run wrote something");
}

#[test]
fn setup_undo_gives_back_the_files_as_they_were() {
    let (env, ws) = home_with_workspace();
    write(&env, ".claude.json", CLAUDE_JSON);
    write(&env, ".claude/settings.json", CLAUDE_SETTINGS);
    write(&env, ".codex/config.toml", CODEX_TOML);
    write(&env, ".codex/AGENTS.md", "# My rules\n\nBe brief.\n");
    let original = files(&env.home);
    for host in ["claude-code", "codex", "cursor", "openclaw"] {
        setup(&env, &ws, &[host]).success();
    }
    assert_ne!(files(&env.home), original);
    for host in ["claude-code", "codex", "cursor", "openclaw"] {
        setup(&env, &ws, &[host, "--undo"]).success();
    }
    let now: Vec<_> =
        files(&env.home).into_iter().filter(|(p, _)| !p.contains(".cogmem-backup-")).collect();
    assert_eq!(now, original, "undo did not give back the files");
    let out = setup(&env, &ws, &["claude-code", "--undo"]).success();
    assert!(out.stderr.contains("nothing of cogmem's to remove"), "{out}");
}

#[test]
fn setup_codex_keeps_toml_comments_and_tables() {
    let (env, ws) = home_with_workspace();
    write(&env, ".codex/config.toml", CODEX_TOML);
    setup(&env, &ws, &["codex"]).success();
    let text = read(&env, ".codex/config.toml");
    let want = format!(
        "# my Codex settings\nmodel = \"o3\"   # the model I like\n\n[mcp_servers.docs]\n# the docs \
         server\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp\"]\n\n[features]\ncodex_hooks = true \
         # added by cogmem setup\nweb_search = true\n\n# cogmem setup: begin (written by `cogmem \
         setup`; `cogmem setup --undo` removes it)\n[mcp_servers.cogmem]\ncommand = \
         \"cogmem\"\nargs = [\"mcp\", \"--workspace\", \"{ws}\"]\n\n[shell_environment_policy.set]\n\
         COGMEM_WORKSPACE = \"{ws}\"\n# cogmem setup: end\n",
        ws = ws.display()
    );
    assert_eq!(text, want);
    let hooks = json(&env, ".codex/hooks.json");
    assert_eq!(hooks["hooks"]["Stop"][0]["hooks"][0]["type"], "command");

    // An existing shell policy gets one marked line, and gives it back on undo.
    let policy = "[shell_environment_policy]\ninherit = \"core\" # keep it small\n";
    write(&env, ".codex/config.toml", policy);
    setup(&env, &ws, &["codex"]).success();
    let text = read(&env, ".codex/config.toml");
    assert!(
        text.starts_with(&format!(
            "[shell_environment_policy]\nset.COGMEM_WORKSPACE = \"{}\" # added by cogmem setup\n\
             inherit = \"core\" # keep it small\n",
            ws.display()
        )),
        "{text}"
    );
    setup(&env, &ws, &["codex", "--undo"]).success();
    assert_eq!(read(&env, ".codex/config.toml"), policy);
}

#[test]
fn setup_refuses_a_malformed_file_and_writes_nothing() {
    let (env, ws) = home_with_workspace();
    write(&env, ".claude/settings.json", "{\n  \"model\": \"opus\",\n  \"hooks\": {,\n}\n");
    let before = files(&env.home);
    let out = setup(&env, &ws, &["claude-code"]).code(1);
    assert!(
        out.stderr.starts_with("error: [TMP]/.claude/settings.json:3: not valid JSON"),
        "{out}"
    );
    assert!(out.stderr.contains("hint: fix the file"), "{out}");
    assert_eq!(files(&env.home), before, "a refused setup wrote something");

    write(&env, ".codex/config.toml", "model = \"o3\"\n[features\n");
    let out = setup(&env, &ws, &["codex"]).code(1);
    assert!(out.stderr.starts_with("error: [TMP]/.codex/config.toml:2: not valid TOML"), "{out}");

    // OpenClaw's file is JSON5; comments are not something setup may drop.
    write(&env, ".openclaw/openclaw.json", "{\n  // my gateway\n  gateway: { port: 18789 },\n}\n");
    let out = setup(&env, &ws, &["openclaw"]).code(1);
    assert!(
        out.stderr.starts_with("error: [TMP]/.openclaw/openclaw.json:2: not valid JSON"),
        "{out}"
    );
    assert!(out.stderr.contains("`openclaw mcp set cogmem '{\"command\":\"cogmem\""), "{out}");
}

#[cfg(unix)]
#[test]
fn setup_refuses_to_replace_a_symbolic_link() {
    let (env, ws) = home_with_workspace();
    write(&env, "dotfiles/cursor-mcp.json", "{}\n");
    std::fs::create_dir_all(env.home.join(".cursor")).unwrap();
    std::os::unix::fs::symlink(
        env.home.join("dotfiles/cursor-mcp.json"),
        env.home.join(".cursor/mcp.json"),
    )
    .unwrap();
    let before = files(&env.home);
    let out = setup(&env, &ws, &["cursor"]).code(1);
    assert!(out.stderr.contains("[TMP]/.cursor/mcp.json:1: is a symbolic link"), "{out}");
    assert!(out.stderr.contains("`--dry-run` shows it"), "{out}");
    assert_eq!(files(&env.home), before);
    // As the hint says, `--dry-run` shows what to add by hand, read through the link.
    let out = setup(&env, &ws, &["cursor", "--dry-run"]).success();
    assert!(
        out.stdout.contains(
            "--- [TMP]/.cursor/mcp.json\n+++ [TMP]/.cursor/mcp.json\n@@ -1 +1,12 @@\n-{}\n+{\n"
        ),
        "{out}"
    );
    assert!(out.stdout.contains("+    \"cogmem\": {\n"), "{out}");
    let out = env
        .run(["--workspace", ws.to_str().unwrap(), "--json", "setup", "cursor", "--dry-run"])
        .current_dir_home()
        .success();
    let report: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(report["files"][0]["link"], true, "{out}");
    let note = report["notes"][0].as_str().unwrap();
    assert!(note.contains(".cursor/mcp.json is a symbolic link (to "), "{note}");
    assert_eq!(files(&env.home), before, "--dry-run wrote through the link");
}

#[test]
fn setup_project_scope_writes_in_the_current_folder() {
    let (env, ws) = home_with_workspace();
    let project = env.home.join("code/app");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("AGENTS.md"), "# app\n\nRun `make test`.\n").unwrap();
    let out = env
        .run(["--workspace", ws.to_str().unwrap(), "setup", "cursor", "--scope", "project"])
        .current_dir(&project)
        .success();
    assert!(out.stderr.contains("created [TMP]/code/app/.cursor/mcp.json (mcp)"), "{out}");
    let hooks = json(&env, "code/app/.cursor/hooks.json");
    assert_eq!(hooks["version"], 1);
    assert!(
        hooks["hooks"]["beforeSubmitPrompt"][0]["command"]
            .as_str()
            .unwrap()
            .starts_with("cogmem hook cursor")
    );
    let agents = read(&env, "code/app/AGENTS.md");
    assert!(
        agents.starts_with("# app\n\nRun `make test`.\n\n<!-- cogmem:memory-block:begin"),
        "{agents}"
    );
    assert!(!env.home.join(".cursor").exists(), "project scope wrote user files");

    // Inside the workspace, project files would be memory without a commit: refused.
    let out =
        env.run(["setup", "claude-code", "--scope", "project"]).current_dir(&ws).output().code(1);
    assert!(out.stderr.contains("is inside the workspace"), "{out}");
    let out = setup(&env, &ws, &["openclaw", "--scope", "project"]).code(1);
    assert!(out.stderr.contains("no project scope"), "{out}");
}

/// The README shows, for each host, the command and the MCP configuration it writes; this runs
/// each command on a fresh home folder and compares (`COGMEM_BLESS=1` rewrites the README).
#[test]
fn readme_host_section_matches_what_setup_writes() {
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let marker = "<!-- setup-output ";
    let mut out = String::new();
    let mut rest = readme.as_str();
    let mut checked = 0;
    while let Some(at) = rest.find(marker) {
        let (head, tail) = rest.split_at(at);
        out.push_str(head);
        let line_end = tail.find('\n').unwrap();
        let spec = tail[marker.len()..line_end].trim_end_matches("-->").trim();
        let (host, file) = spec.split_once(' ').unwrap();
        out.push_str(&tail[..=line_end]);
        let body = &tail[line_end + 1..];
        let fence_open = body.find('\n').unwrap();
        out.push_str(&body[..=fence_open]);
        let close = body.find("\n```\n").unwrap();
        let (env, ws) = home_with_workspace();
        setup(&env, &ws, &[host]).success();
        let written = read(&env, file.trim_start_matches("~/"));
        let shown = written.replace(env.home.to_str().unwrap(), "/home/you");
        out.push_str(&shown);
        out.push_str("```\n");
        rest = &body[close + 5..];
        checked += 1;
    }
    out.push_str(rest);
    assert_eq!(checked, 4, "the README should show one configuration per host");
    if std::env::var_os("COGMEM_BLESS").is_some() {
        std::fs::write(&readme_path, &out).unwrap();
    }
    assert_eq!(
        readme, out,
        "README.md's host section differs from what setup writes; run with COGMEM_BLESS=1"
    );
}

#[test]
fn setup_with_another_workspace_replaces_its_entries() {
    let (env, ws) = home_with_workspace();
    env.run(["init", "other-memory"]).current_dir_home().success();
    let other = env.home.join("other-memory");
    write(&env, ".claude/settings.json", CLAUDE_SETTINGS);
    write(
        &env,
        ".cursor/hooks.json",
        "{\n  \"version\": 1,\n  \"hooks\": {\n    \"stop\": [\n      {\n        \"command\": \"afplay done.wav\"\n      }\n    ]\n  }\n}\n",
    );
    for host in ["claude-code", "cursor", "codex"] {
        setup(&env, &ws, &[host]).success();
        setup(&env, &other, &[host]).success();
    }
    let settings = json(&env, ".claude/settings.json");
    let start = settings["hooks"]["SessionStart"].as_array().unwrap();
    assert_eq!(start.len(), 2, "{start:?}");
    assert_eq!(
        start[1]["hooks"][0]["command"],
        format!("cogmem hook claude-code --workspace {}", other.display())
    );
    assert_eq!(settings["env"]["COGMEM_WORKSPACE"], other.to_str().unwrap());
    let cursor = json(&env, ".cursor/hooks.json");
    assert_eq!(cursor["hooks"]["stop"], serde_json::json!([{"command": "afplay done.wav"}]));
    let start = cursor["hooks"]["sessionStart"].as_array().unwrap();
    assert_eq!(start.len(), 1, "{start:?}");
    assert_eq!(start[0]["command"], format!("cogmem hook cursor --workspace {}", other.display()));
    let toml = read(&env, ".codex/config.toml");
    assert_eq!(toml.matches("[mcp_servers.cogmem]").count(), 1, "{toml}");
    assert!(toml.contains(&format!("\"{}\"", other.display())), "{toml}");
    assert!(read(&env, ".claude.json").contains("other-memory"));
}

#[test]
fn setup_codex_follows_codex_home() {
    let (env, ws) = home_with_workspace();
    let custom = env.home.join("custom-codex");
    std::fs::create_dir_all(&custom).unwrap();
    let out = env
        .run(["--workspace", ws.to_str().unwrap(), "setup", "codex"])
        .current_dir_home()
        .env("CODEX_HOME", &custom)
        .success();
    assert!(out.stderr.contains("created [TMP]/custom-codex/config.toml (mcp)"), "{out}");
    assert!(custom.join("hooks.json").is_file() && custom.join("AGENTS.md").is_file());
    assert!(!env.home.join(".codex").exists(), "wrote ~/.codex despite CODEX_HOME");
}

/// A `COGMEM_WORKSPACE` the user set in Claude Code's settings is theirs: setup keeps it (and
/// says so when it names another workspace), and undo leaves it.
#[test]
fn setup_claude_code_keeps_the_users_own_cogmem_workspace() {
    let (env, ws) = home_with_workspace();
    let settings = "{\n  \"env\": {\n    \"COGMEM_WORKSPACE\": \"/srv/team-memory\"\n  }\n}\n";
    write(&env, ".claude/settings.json", settings);
    let out = setup(&env, &ws, &["claude-code"]).success();
    assert!(
        out.stderr.contains(
            "note: [TMP]/.claude/settings.json sets `env.COGMEM_WORKSPACE` to \"/srv/team-memory\", \
             which setup did not write; it left it"
        ),
        "{out}"
    );
    let after = json(&env, ".claude/settings.json");
    assert_eq!(after["env"]["COGMEM_WORKSPACE"], "/srv/team-memory");
    assert!(after["hooks"]["SessionStart"].is_array(), "{after}");
    setup(&env, &ws, &["claude-code", "--undo"]).success();
    assert_eq!(read(&env, ".claude/settings.json"), settings, "undo took the user's value");

    // The same value, set by hand before setup: no note, nothing of it changed.
    let same =
        format!("{{\n  \"env\": {{\n    \"COGMEM_WORKSPACE\": \"{}\"\n  }}\n}}\n", ws.display());
    write(&env, ".claude/settings.json", &same);
    let out = setup(&env, &ws, &["claude-code"]).success();
    assert!(!out.stderr.contains("note: [TMP]/.claude/settings.json"), "{out}");
    assert_eq!(
        json(&env, ".claude/settings.json")["env"]["COGMEM_WORKSPACE"],
        ws.to_str().unwrap()
    );
}

/// An `mcpServers.cogmem` the user wrote (their own command, say) is refused, as Codex's
/// `[mcp_servers.cogmem]` is, with nothing written; undo leaves it, with a note.
#[test]
fn setup_refuses_a_cogmem_server_it_did_not_write() {
    let (env, ws) = home_with_workspace();
    let theirs = "{\n  \"mcpServers\": {\n    \"cogmem\": {\n      \"command\": \"/opt/cogmem/bin/cogmem\",\n      \"args\": [\"mcp\"]\n    }\n  }\n}\n";
    for (host, file) in [("claude-code", ".claude.json"), ("cursor", ".cursor/mcp.json")] {
        write(&env, file, theirs);
        let before = files(&env.home);
        let out = setup(&env, &ws, &[host]).code(1);
        assert!(
            out.stderr.starts_with(&format!(
                "error: [TMP]/{file}:3: already has an `mcpServers.cogmem` that setup did not \
                 write"
            )),
            "{host}: {out}"
        );
        assert!(
            out.stderr.contains(&format!("then run `cogmem setup {host}` again")),
            "{host}: {out}"
        );
        assert_eq!(files(&env.home), before, "{host}: a refused setup wrote something");
        let out = setup(&env, &ws, &[host, "--undo"]).success();
        assert!(
            out.stderr.contains("that setup did not write; it is yours, so undo left it"),
            "{out}"
        );
        assert_eq!(read(&env, file), theirs, "{host}: undo removed the user's server");
    }
}

/// OpenClaw reads AGENTS.md from its agent workspace: `agents.defaults.workspace` in the
/// openclaw.json setup edits, else `OPENCLAW_WORKSPACE_DIR`, else the profile's default.
#[test]
fn setup_openclaw_writes_agents_md_in_the_configured_agent_workspace() {
    let (env, ws) = home_with_workspace();
    let config = "{\n  \"agents\": {\n    \"defaults\": {\n      \"workspace\": \"~/agents/main\"\n    }\n  }\n}\n";
    write(&env, ".openclaw/openclaw.json", config);
    let out = env
        .run(["--workspace", ws.to_str().unwrap(), "setup", "openclaw"])
        .current_dir_home()
        .env("OPENCLAW_WORKSPACE_DIR", env.home.join("ignored"))
        .success();
    assert!(out.stderr.contains("created [TMP]/agents/main/AGENTS.md (instructions)"), "{out}");
    assert!(!env.home.join(".openclaw/workspace").exists(), "{out}");
    assert!(!env.home.join("ignored").exists(), "the configured workspace comes first: {out}");
    setup(&env, &ws, &["openclaw", "--undo"]).success();
    assert!(!env.home.join("agents/main/AGENTS.md").exists());
    assert_eq!(read(&env, ".openclaw/openclaw.json"), config);

    // Without it: OPENCLAW_WORKSPACE_DIR, else the profile's workspace.
    std::fs::remove_file(env.home.join(".openclaw/openclaw.json")).unwrap();
    let out = env
        .run(["--workspace", ws.to_str().unwrap(), "setup", "openclaw", "--dry-run"])
        .current_dir_home()
        .env("OPENCLAW_WORKSPACE_DIR", env.home.join("claw-ws"))
        .success();
    assert!(out.stdout.contains("+++ [TMP]/claw-ws/AGENTS.md\n"), "{out}");
    let out = env
        .run(["--workspace", ws.to_str().unwrap(), "setup", "openclaw", "--dry-run"])
        .current_dir_home()
        .env("OPENCLAW_PROFILE", "work")
        .success();
    // Newer OpenClaw keeps a profile's workspace in its state folder.
    assert!(out.stdout.contains("+++ [TMP]/.openclaw-work/workspace/AGENTS.md\n"), "{out}");
}

/// A profile's workspace is `~/.openclaw-PROFILE/workspace` (newer OpenClaw), or
/// `~/.openclaw/workspace-PROFILE` where an older OpenClaw made it and the newer one is not
/// there; the default agent's own `workspace` in openclaw.json (`agents.entries.main`, or the
/// older `agents.list`'s default entry) comes before `agents.defaults.workspace`.
/// See: docs/decisions.md 2026-12-06, eleventh stop
#[test]
fn setup_openclaw_finds_the_profiles_and_the_agents_own_workspace() {
    let (env, ws) = home_with_workspace();
    let dry_run = |vars: &[(&str, &str)]| {
        let mut cmd = env
            .run(["--workspace", ws.to_str().unwrap(), "setup", "openclaw", "--dry-run"])
            .current_dir_home();
        for (k, v) in vars {
            cmd = cmd.env(k, v);
        }
        cmd.success().stdout
    };
    let profile = [("OPENCLAW_PROFILE", "work")];
    assert!(dry_run(&profile).contains("+++ [TMP]/.openclaw-work/workspace/AGENTS.md\n"));
    std::fs::create_dir_all(env.home.join(".openclaw/workspace-work")).unwrap();
    let out = dry_run(&profile);
    assert!(out.contains("+++ [TMP]/.openclaw/workspace-work/AGENTS.md\n"), "older: {out}");
    std::fs::create_dir_all(env.home.join(".openclaw-work/workspace")).unwrap();
    let out = dry_run(&profile);
    assert!(out.contains("+++ [TMP]/.openclaw-work/workspace/AGENTS.md\n"), "newer: {out}");

    for (config, want) in [
        (
            r#"{"agents": {"defaults": {"workspace": "~/shared"}, "entries": {"main": {"workspace": "~/mine"}}}}"#,
            "+++ [TMP]/mine/AGENTS.md\n",
        ),
        (
            r#"{"agents": {"defaults": {"workspace": "~/shared"}, "list": [{"id": "ops", "workspace": "~/ops"}, {"id": "home", "default": true, "workspace": "~/home-agent"}]}}"#,
            "+++ [TMP]/home-agent/AGENTS.md\n",
        ),
        (
            r#"{"agents": {"defaults": {"workspace": "~/shared"}, "list": [{"id": "ops"}]}}"#,
            "+++ [TMP]/shared/AGENTS.md\n",
        ),
        // No entry marked: OpenClaw's default agent is the first, not `main` (whose workspace
        // would be `~/shared/main`). The twelfth stop's list.
        (
            r#"{"agents": {"defaults": {"workspace": "~/shared"}, "list": [{"id": "ops", "workspace": "~/ops"}, {"id": "main"}]}}"#,
            "+++ [TMP]/ops/AGENTS.md\n",
        ),
    ] {
        write(&env, ".openclaw/openclaw.json", &format!("{config}\n"));
        let out = dry_run(&[]);
        assert!(out.contains(want), "{config}: {out}");
    }
}

/// A valid config.toml whose `mcp_servers` is an inline table: setup says why it cannot add
/// its table there and what to do, not a TOML error on a line the file does not have.
#[test]
fn setup_codex_explains_an_inline_mcp_servers_table() {
    let (env, ws) = home_with_workspace();
    let text = "model = \"o3\"\nmcp_servers = { other = { command = \"x\" } }\n";
    write(&env, ".codex/config.toml", text);
    let before = files(&env.home);
    let out = setup(&env, &ws, &["codex"]).code(1);
    assert!(
        out.stderr.starts_with(
            "error: [TMP]/.codex/config.toml:2: `mcp_servers` is written inline \
             (`mcp_servers = { … }`), so setup cannot add a `[mcp_servers.cogmem]` table next to it"
        ),
        "{out}"
    );
    assert!(
        out.stderr.contains("hint: write each server as its own `[mcp_servers.NAME]`"),
        "{out}"
    );
    assert!(!out.stderr.contains("not valid TOML"), "{out}");
    assert_eq!(files(&env.home), before);
}

/// `--dry-run` says on stderr what a real run would leave to the user, as a real run does.
#[test]
fn setup_dry_run_prints_the_notes_on_stderr() {
    let (env, ws) = home_with_workspace();
    write(&env, ".codex/config.toml", "[features]\ncodex_hooks = false\n");
    let out = setup(&env, &ws, &["codex", "--dry-run"]).success();
    assert!(
        out.stderr.contains(
            "note: [TMP]/.codex/config.toml sets `features.codex_hooks = false`; setup left it"
        ),
        "{out}"
    );
    assert!(!out.stdout.contains("note:"), "stdout is the diff only: {out}");
    let out = setup(&env, &ws, &["cursor", "--dry-run"]).success();
    assert!(out.stderr.contains("note: Cursor keeps user rules in its settings"), "{out}");
}

/// Codex: `hooks` is its own name for the switch (`codex_hooks` the older one): `hooks = false`
/// is left with a note, and no `codex_hooks = true` goes next to it; and Codex runs a new or
/// changed hook only once trusted, which setup says whenever it writes the hooks.
#[test]
fn setup_codex_reads_the_hooks_switch_and_says_the_hooks_need_trust() {
    let (env, ws) = home_with_workspace();
    write(&env, ".codex/config.toml", "[features]\nhooks = false\n");
    let out = setup(&env, &ws, &["codex"]).success();
    assert!(
        out.stderr.contains("sets `features.hooks = false`; setup left it, so Codex will not run"),
        "{out}"
    );
    assert!(!read(&env, ".codex/config.toml").contains("codex_hooks"), "no second switch");
    assert!(out.stderr.contains("open `/hooks` in Codex and trust"), "{out}");
    // Nothing written again: nothing to trust again.
    let out = setup(&env, &ws, &["codex"]).success();
    assert!(!out.stderr.contains("open `/hooks`"), "{out}");
    // A fresh home: the older switch is added for Codex versions that need it.
    let (env, ws) = home_with_workspace();
    setup(&env, &ws, &["codex"]).success();
    assert!(read(&env, ".codex/config.toml").contains("codex_hooks = true"));
}

/// The entries of `cogmem hook HOST` in a hooks.json, by event: (event, timeout).
fn hook_entries(doc: &serde_json::Value, host: &str) -> Vec<(String, Option<u64>)> {
    let prefix = format!("cogmem hook {host}");
    let mut out = Vec::new();
    for (event, groups) in doc["hooks"].as_object().unwrap() {
        for hook in groups.as_array().unwrap().iter().flat_map(|g| g["hooks"].as_array().unwrap()) {
            if hook["command"].as_str().unwrap().starts_with(&prefix) {
                out.push((event.clone(), hook["timeout"].as_u64()));
            }
        }
    }
    out
}

/// Claude Code gives SessionEnd hooks 1.5 s unless a `timeout` raises the budget (to at most
/// 60 s); the transcript imports get their own timeouts, the context hooks keep the defaults.
#[test]
fn setup_claude_code_gives_the_import_hooks_a_timeout() {
    let (env, ws) = home_with_workspace();
    write(&env, ".claude/settings.json", CLAUDE_SETTINGS);
    setup(&env, &ws, &["claude-code"]).success();
    let settings = json(&env, ".claude/settings.json");
    let want = [
        ("SessionStart".to_owned(), None),
        ("UserPromptSubmit".to_owned(), None),
        ("PreCompact".to_owned(), Some(120)),
        ("SessionEnd".to_owned(), Some(60)),
    ];
    let mut got = hook_entries(&settings, "claude-code");
    got.sort();
    let mut want = want.to_vec();
    want.sort();
    assert_eq!(got, want);
    // The user's own hooks keep what they had (no timeout added).
    assert_eq!(
        settings["hooks"]["Stop"][0]["hooks"][0],
        serde_json::json!({"type": "command", "command": "notify-send done"})
    );
}

/// Codex registers SessionEnd (3 s at most) beside Stop, which keeps importing each turn; an
/// older setup's hooks.json (Stop only, no timeouts) gets the new entry, its timeout, and a note
/// for the others (it cannot be told from a file whose timeouts the user deleted), and undo
/// takes out every event's entry.
#[test]
fn setup_codex_registers_session_end_and_upgrades_an_older_setup() {
    let (env, ws) = home_with_workspace();
    let command = format!("cogmem hook codex --workspace {}", ws.display());
    let group = serde_json::json!([{ "hooks": [{ "type": "command", "command": command }] }]);
    let older = serde_json::json!({ "hooks": {
        "SessionStart": group, "UserPromptSubmit": group, "PreCompact": group, "Stop": group,
    }});
    write(&env, ".codex/hooks.json", &serde_json::to_string_pretty(&older).unwrap());
    let out = setup(&env, &ws, &["codex"]).success();
    assert!(out.stderr.contains("(PreCompact 120 s, Stop 120 s)"), "{out}");
    let mut got = hook_entries(&json(&env, ".codex/hooks.json"), "codex");
    got.sort();
    let want = [
        ("PreCompact".to_owned(), None),
        ("SessionEnd".to_owned(), Some(3)),
        ("SessionStart".to_owned(), None),
        ("Stop".to_owned(), None),
        ("UserPromptSubmit".to_owned(), None),
    ];
    assert_eq!(got, want);
    setup(&env, &ws, &["codex", "--undo"]).success();
    assert!(!env.home.join(".codex/hooks.json").exists(), "undo left cogmem's hooks");
}

/// `OPENCLAW_PROFILE` names the profile whose configuration setup edits, as `openclaw --profile
/// NAME` does: `~/.openclaw-NAME/openclaw.json`; `OPENCLAW_STATE_DIR` and `OPENCLAW_CONFIG_PATH`
/// win over it. The default profile's file is left alone, by setup and by undo.
#[test]
fn setup_openclaw_edits_the_profiles_configuration() {
    let (env, ws) = home_with_workspace();
    let default = "{\n  \"gateway\": {\n    \"port\": 18789\n  }\n}\n";
    write(&env, ".openclaw/openclaw.json", default);
    let run = |args: &[&str], vars: &[(&str, &str)]| {
        let mut all = vec!["--workspace", ws.to_str().unwrap(), "setup", "openclaw"];
        all.extend_from_slice(args);
        let mut cmd = env.run(all).current_dir_home();
        for (k, v) in vars {
            cmd = cmd.env(k, v);
        }
        cmd.success()
    };
    let out = run(&[], &[("OPENCLAW_PROFILE", "work")]);
    assert!(out.stderr.contains("created [TMP]/.openclaw-work/openclaw.json (mcp)"), "{out}");
    assert!(out.stderr.contains("created [TMP]/.openclaw-work/workspace/AGENTS.md"), "{out}");
    assert_eq!(read(&env, ".openclaw/openclaw.json"), default, "the default profile's file");
    assert_eq!(
        json(&env, ".openclaw-work/openclaw.json")["mcp"]["servers"]["cogmem"]["command"],
        "cogmem"
    );
    run(&["--undo"], &[("OPENCLAW_PROFILE", "work")]);
    assert!(!env.home.join(".openclaw-work/openclaw.json").exists());
    assert_eq!(read(&env, ".openclaw/openclaw.json"), default);

    let state = env.home.join("claw-state");
    let out = run(
        &["--dry-run"],
        &[("OPENCLAW_PROFILE", "work"), ("OPENCLAW_STATE_DIR", state.to_str().unwrap())],
    );
    assert!(out.stdout.contains("+++ [TMP]/claw-state/openclaw.json\n"), "{out}");
    let out = run(
        &["--dry-run"],
        &[("OPENCLAW_STATE_DIR", "~/claw-state"), ("OPENCLAW_CONFIG_PATH", "~/claw.json")],
    );
    assert!(out.stdout.contains("+++ [TMP]/claw.json\n"), "{out}");
}

/// Codex and Cursor both read a project's AGENTS.md: undoing one keeps the block while the
/// other's setup is still there, and the last undo removes it.
#[test]
fn setup_keeps_a_shared_agents_md_block_until_the_last_host_is_undone() {
    let (env, ws) = home_with_workspace();
    let project = env.home.join("code/app");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("AGENTS.md"), "# app\n\nRun `make test`.\n").unwrap();
    let run = |args: &[&str]| {
        let mut all = vec!["--workspace", ws.to_str().unwrap(), "setup"];
        all.extend_from_slice(args);
        env.run(all).current_dir(&project).success()
    };
    let block = "<!-- cogmem:memory-block:begin";
    for (first, second) in [("codex", "cursor"), ("cursor", "codex")] {
        run(&[first, "--scope", "project"]);
        run(&[second, "--scope", "project"]);
        let out = run(&[first, "--scope", "project", "--undo"]);
        assert!(
            out.stderr.contains(&format!(
                "keeps cogmem's memory block: `cogmem setup {second} --scope project` still uses it"
            )),
            "{out}"
        );
        assert!(read(&env, "code/app/AGENTS.md").contains(block), "{first} took the block");
        run(&[second, "--scope", "project", "--undo"]);
        assert_eq!(read(&env, "code/app/AGENTS.md"), "# app\n\nRun `make test`.\n");
    }
}

/// A workspace inside the project is named relative to the project in the files Claude Code
/// resolves that way (`CLAUDE_PROJECT_DIR`), so they can be committed; the hook command still
/// finds the workspace when the host runs it. Codex's files name it by absolute path, and setup
/// says so.
#[test]
fn setup_project_scope_names_a_workspace_inside_the_project_relative_to_it() {
    let env = TestEnv::new();
    let project = env.home.join("code/app");
    std::fs::create_dir_all(&project).unwrap();
    env.run(["init", "memory"]).current_dir(&project).success();
    let run = |host: &str| {
        env.run(["--workspace", "memory", "setup", host, "--scope", "project"])
            .current_dir(&project)
            .success()
    };
    let out = run("claude-code");
    assert!(out.stderr.contains("name the workspace as memory in the project"), "{out}");
    let mcp = json(&env, "code/app/.mcp.json");
    let args = &mcp["mcpServers"]["cogmem"]["args"];
    assert_eq!(args, &serde_json::json!(["mcp", "--workspace", "${CLAUDE_PROJECT_DIR:-.}/memory"]));
    let settings = read(&env, "code/app/.claude/settings.json");
    let abs = env.home.to_str().unwrap();
    assert!(
        !settings.contains(abs) && !read(&env, "code/app/.mcp.json").contains(abs),
        "{settings}"
    );
    let command = "cogmem hook claude-code --workspace \"${CLAUDE_PROJECT_DIR}\"/memory";
    let hooks: serde_json::Value = serde_json::from_str(&settings).unwrap();
    assert_eq!(hooks["hooks"]["SessionStart"][0]["hooks"][0]["command"], command);
    assert!(hooks.get("env").is_none(), "{settings}");
    // The host runs the command through a shell, with CLAUDE_PROJECT_DIR set, from anywhere.
    let bin = Path::new(env!("CARGO_BIN_EXE_cogmem")).parent().unwrap();
    let sealed = crate::common::sealed_command(&env.home, &env.home, &env.peek_now());
    let mut sh = std::process::Command::new("sh");
    sh.env_clear()
        .envs(sealed.get_envs().filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))))
        .env("PATH", format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default()))
        .env("CLAUDE_PROJECT_DIR", &project)
        .current_dir(&env.home);
    let event = r#"{"hook_event_name":"UserPromptSubmit","cwd":"/","prompt":"Remember that the deploy window is Friday"}"#;
    let out = sh.args(["-c", &format!("echo '{event}' | {command}")]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("cogmem remembered"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run("codex");
    assert!(out.stderr.contains("Codex documents no variable for the project's folder"), "{out}");
    assert!(read(&env, "code/app/.codex/config.toml").contains(abs));
}

/// A host's configuration kept private (mode 0600: `.claude.json` and Codex's `config.toml`
/// may hold API keys) has private backups, made by setup and by `--undo`; they were 0644.
#[cfg(unix)]
#[test]
fn backups_of_a_private_file_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let (env, ws) = home_with_workspace();
    write(&env, ".claude.json", CLAUDE_JSON);
    write(&env, ".codex/config.toml", CODEX_TOML);
    for rel in [".claude.json", ".codex/config.toml"] {
        let private = std::fs::Permissions::from_mode(0o600);
        std::fs::set_permissions(env.home.join(rel), private).unwrap();
    }
    setup(&env, &ws, &["claude-code"]).success();
    setup(&env, &ws, &["codex"]).success();
    setup(&env, &ws, &["claude-code", "--undo"]).success();
    let mode =
        |rel: &str| std::fs::metadata(env.home.join(rel)).unwrap().permissions().mode() & 0o777;
    let backups = backups(&env.home);
    let private: Vec<&String> = backups
        .iter()
        .filter(|b| b.starts_with(".claude.json") || b.starts_with(".codex/config.toml"))
        .collect();
    assert!(private.len() >= 3, "setup and undo each back the files up: {backups:?}");
    for b in private {
        assert_eq!(mode(b), 0o600, "{b}");
    }
    assert_eq!(mode(".claude.json"), 0o600);
    assert_eq!(mode(".codex/config.toml"), 0o600);
}

/// What a user sets on cogmem's own hook entries is theirs: a `matcher` on its group, another
/// `timeout`, a field setup never writes. Setup keeps it (it owns only the command), says so,
/// changes nothing on the next run, carries it over to another workspace, and undo still takes
/// cogmem's entries out whole.
#[test]
fn setup_keeps_what_the_user_set_on_cogmems_hook_entries() {
    let (env, ws) = home_with_workspace();
    write(&env, ".claude/settings.json", CLAUDE_SETTINGS);
    setup(&env, &ws, &["claude-code"]).success();
    setup(&env, &ws, &["cursor"]).success();
    let mut settings = json(&env, ".claude/settings.json");
    let ours = |list: &serde_json::Value| {
        list.as_array()
            .unwrap()
            .iter()
            .position(|g| {
                g["hooks"][0]["command"].as_str().unwrap().starts_with("cogmem hook claude-code")
            })
            .unwrap()
    };
    let start = ours(&settings["hooks"]["SessionStart"]);
    settings["hooks"]["SessionStart"][start]["matcher"] = "startup|resume".into();
    let end = ours(&settings["hooks"]["SessionEnd"]);
    settings["hooks"]["SessionEnd"][end]["hooks"][0]["timeout"] = 30.into();
    settings["hooks"]["SessionEnd"][end]["hooks"][0]["statusMessage"] = "saving memory".into();
    let edited = serde_json::to_string_pretty(&settings).unwrap() + "\n";
    write(&env, ".claude/settings.json", &edited);
    let mut cursor = json(&env, ".cursor/hooks.json");
    cursor["hooks"]["sessionStart"][0]["timeout"] = 5.into();
    let cursor_edited = serde_json::to_string_pretty(&cursor).unwrap() + "\n";
    write(&env, ".cursor/hooks.json", &cursor_edited);

    let out = setup(&env, &ws, &["claude-code"]).success();
    assert_eq!(read(&env, ".claude/settings.json"), edited, "{out}");
    assert!(out.stderr.contains("already set up"), "{out}");
    assert!(
        out.stderr.contains(
            "note: [TMP]/.claude/settings.json has fields of yours on cogmem's hook entries; \
             setup owns only their command and kept them: SessionStart `matcher` \
             \"startup|resume\", SessionEnd `timeout` 30 (setup's is 60), SessionEnd \
             `statusMessage` \"saving memory\""
        ),
        "{out}"
    );
    let out = setup(&env, &ws, &["cursor"]).success();
    assert_eq!(read(&env, ".cursor/hooks.json"), cursor_edited, "{out}");
    assert!(out.stderr.contains("kept them: sessionStart `timeout` 5"), "{out}");

    // Another workspace: the command is setup's, the rest stays where the user put it.
    env.run(["init", "other-memory"]).current_dir_home().success();
    let other = env.home.join("other-memory");
    setup(&env, &other, &["claude-code"]).success();
    let moved = json(&env, ".claude/settings.json");
    let group = &moved["hooks"]["SessionStart"][start];
    assert_eq!(group["matcher"], "startup|resume", "{moved}");
    assert_eq!(
        group["hooks"][0]["command"],
        format!("cogmem hook claude-code --workspace {}", other.display())
    );
    assert_eq!(moved["hooks"]["SessionEnd"][end]["hooks"][0]["timeout"], 30);
    let before = files(&env.home);
    setup(&env, &other, &["claude-code"]).success();
    assert_eq!(files(&env.home), before, "the second run changed files");

    for host in ["claude-code", "cursor"] {
        setup(&env, &other, &[host, "--undo"]).success();
    }
    assert_eq!(read(&env, ".claude/settings.json"), CLAUDE_SETTINGS);
    assert!(!env.home.join(".cursor/hooks.json").exists(), "undo left cogmem's cursor hooks");
}

/// OpenClaw's AGENTS.md is the one of its agent workspace, which can be a project Codex or
/// Cursor is set up in, or Codex's own folder: undoing any of them keeps the block while
/// another's setup still uses the same file, and the last undo removes it.
#[test]
fn setup_keeps_an_agents_md_block_openclaw_shares_with_codex() {
    let (env, ws) = home_with_workspace();
    let project = env.home.join("code/app");
    std::fs::create_dir_all(&project).unwrap();
    let original = "# app\n\nRun `make test`.\n";
    std::fs::write(project.join("AGENTS.md"), original).unwrap();
    let config = "{\n  \"agents\": {\n    \"defaults\": {\n      \"workspace\": \"~/code/app\"\n    }\n  }\n}\n";
    write(&env, ".openclaw/openclaw.json", config);
    let run = |args: &[&str]| {
        let mut all = vec!["--workspace", ws.to_str().unwrap(), "setup"];
        all.extend_from_slice(args);
        env.run(all).current_dir(&project).success()
    };
    let block = "<!-- cogmem:memory-block:begin";
    let codex = ["codex", "--scope", "project"];
    for undo_openclaw_first in [true, false] {
        run(&["openclaw"]);
        run(&codex);
        let (first, second, keeper): (&[&str], &[&str], _) = if undo_openclaw_first {
            (&["openclaw"], &codex, "`cogmem setup codex --scope project`")
        } else {
            (&codex, &["openclaw"], "`cogmem setup openclaw`")
        };
        let out = run(&[first, &["--undo"]].concat());
        assert!(
            out.stderr.contains(&format!("keeps cogmem's memory block: {keeper} still uses it")),
            "{out}"
        );
        assert!(read(&env, "code/app/AGENTS.md").contains(block), "{first:?} took the block");
        run(&[second, &["--undo"]].concat());
        assert_eq!(read(&env, "code/app/AGENTS.md"), original);
        assert_eq!(read(&env, ".openclaw/openclaw.json"), config);
    }

    // OpenClaw's agent workspace in Codex's folder: the user scope's AGENTS.md is shared.
    std::fs::remove_file(env.home.join(".openclaw/openclaw.json")).unwrap();
    let codex_dir = env.home.join(".codex");
    let run = |args: &[&str]| {
        let mut all = vec!["--workspace", ws.to_str().unwrap(), "setup"];
        all.extend_from_slice(args);
        env.run(all).current_dir_home().env("OPENCLAW_WORKSPACE_DIR", &codex_dir).success()
    };
    run(&["codex"]);
    run(&["openclaw"]);
    let out = run(&["codex", "--undo"]);
    assert!(out.stderr.contains("keeps cogmem's memory block: `cogmem setup openclaw`"), "{out}");
    assert!(read(&env, ".codex/AGENTS.md").contains(block));
    run(&["openclaw", "--undo"]);
    assert!(!codex_dir.join("AGENTS.md").exists(), "the last undo left the block");
}
