//! Secrets: every command that writes (CLI and MCP) refuses a field that looks like a credential
//! with exit 4, naming the field, the rule and where, never echoing the secret; with
//! `--allow-secret` the text is written, but no file name, id or tag is made from the secret.
//! Reasons have no way out. A usage error never prints a secret argument.
//! `secrets::scan_workspace` finds what is already there.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::common::TestEnv;

/// A fake GitHub token, assembled so that no scanner flags this file.
fn github_token() -> String {
    format!("{}_{}", "ghp", "aB3dE5gH7jK9mN1pQ3rS5tU7vW9xY1zA2bC4")
}

pub(crate) fn aws_key_id() -> String {
    format!("{}{}", "AKIA", "IOSFODNN7EXAMPLE")
}

#[track_caller]
fn refused(env: &TestEnv, args: &[&str], stdin: Option<&str>, rule: &str, secret: &str) -> String {
    let err = refused_without_way_out(env, args, stdin, rule, secret);
    assert!(err.contains("--allow-secret"), "{args:?} gives the way out:\n{err}");
    err
}

/// A field with no `--allow-secret` (a reason): refused the same way, with a hint to leave
/// the credential out instead.
#[track_caller]
fn refused_note(env: &TestEnv, args: &[&str], secret: &str) -> String {
    let err = refused_without_way_out(env, args, None, "password-assignment", secret);
    assert!(err.contains("the reason looks like a secret"), "{args:?}:\n{err}");
    assert!(err.contains("write the reason without it"), "{args:?}:\n{err}");
    err
}

#[track_caller]
fn refused_without_way_out(
    env: &TestEnv,
    args: &[&str],
    stdin: Option<&str>,
    rule: &str,
    secret: &str,
) -> String {
    let head = env.head();
    let before = env.snapshot();
    let mut cmd = env.run(args);
    if let Some(s) = stdin {
        cmd = cmd.stdin(s.as_bytes());
    }
    let out = cmd.output().code(4);
    assert!(out.stderr.contains(rule), "{args:?} names the rule:\n{out}");
    assert!(out.stderr.contains("line "), "{args:?} says where:\n{out}");
    assert!(!out.stderr.contains(secret), "{args:?} echoes the secret:\n{out}");
    assert!(!out.stdout.contains(secret), "{args:?} echoes the secret:\n{out}");
    assert_eq!(env.head(), head, "{args:?}: no commit");
    assert_eq!(env.snapshot(), before, "{args:?}: no change on disk");
    out.stderr
}

#[test]
fn remember_refuses_credentials_unless_allowed() {
    let env = TestEnv::initialized();
    let token = github_token();
    let text = format!("the CI token is {token}");
    let err = refused(&env, &["remember", &text], None, "github-token", &token);
    assert!(err.contains("line 1, column 17"), "{err}");
    assert!(err.contains("ghp_… (40 chars)"), "{err}");
    // Every store, stdin too, and a title.
    refused(&env, &["remember", "--store", "core", &text], None, "github-token", &token);
    refused(&env, &["remember", "-"], Some(&text), "github-token", &token);
    let pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n";
    refused(&env, &["remember", "--store", "vault", "-"], Some(pem), "private-key", "b3BlbnNzaC1r");
    refused(
        &env,
        &["remember", "db login: password=Hunter2!x"],
        None,
        "password-assignment",
        "Hunter2!x",
    );
    // Ordinary prose with key words is fine.
    env.mutate(["remember", "The secret to good bread is patience; the key is time."]);
    env.mutate(["remember", "--allow-secret", &text]);
    assert!(env.snapshot().iter().any(|(_, b)| String::from_utf8_lossy(b).contains(&token)));
}

#[test]
fn issue_16_remember_refuses_a_credential_in_the_tags_unless_allowed() {
    // See: issue 16
    let env = TestEnv::initialized();
    let token = github_token();
    refused(&env, &["remember", "x", "--tags", &token], None, "github-token", &token);
    let tags = format!("db,{token}");
    let err = refused(&env, &["remember", "x", "--tags", &tags], None, "github-token", &token);
    assert!(err.contains("the tag list looks like a secret"), "{err}");
    env.mutate(["remember", "--allow-secret", "x", "--tags", &token]);
    assert!(env.snapshot().iter().any(|(_, b)| String::from_utf8_lossy(b).contains(&token)));
}

#[test]
fn a_credential_in_a_routing_answers_summary_is_named_as_the_summary() {
    let env = TestEnv::initialized();
    let key = aws_key_id();
    let routing = format!(
        r#"{{"store":"semantic","summary":"the deploy key is {key}","entities":[{{"id":"project--api","name":"API","type":"project"}}],"tags":["deploy"],"confidence":"high"}}"#
    );
    let args = ["remember", "deploy notes for the api", "--routing", &routing];
    let err = refused(&env, &args, None, "aws-access-key-id", &key);
    assert!(err.contains("the routing answer's summary looks like a secret"), "{err}");
    assert!(err.contains("line 1, column 19"), "the summary's own column:\n{err}");
}

#[test]
fn issue_16_every_reason_is_scanned_and_has_no_way_out() {
    // See: issue 16
    let env = TestEnv::initialized();
    let pw = "Hunter2!x";
    let reason = format!("db login password={pw}");
    env.mutate(["remember", "Postgres 14 is the database", "--entity", "tool--postgres-14"]);
    env.mutate(["remember", "Postgres 17 is the new database", "--entity", "tool--postgres-17"]);
    let supersede = ["supersede", "tool--postgres-14", "--by", "tool--postgres-17", "--reason"];
    refused_note(&env, &[&supersede[..], &[reason.as_str()]].concat(), pw);
    // Reward requests and decisions.
    refused_note(&env, &["reflect", "request", "--extra", "100", "--reason", &reason], pw);
    env.mutate(["reflect", "request"]);
    let decide = ["--actor", "user:ann", "reflect", "decide", "approve", "--reason"];
    refused_note(&env, &[&decide[..], &[reason.as_str()]].concat(), pw);
    env.mutate(["--actor", "user:ann", "reflect", "decide", "approve"]);
    env.run(["reflect", "submit", "-"]).stdin("Just thinking.\n").success();
    refused_note(&env, &["--actor", "user:ann", "reflect", "reject", "--reason", &reason], pw);
    // A proposal's rejection or deferral.
    env.mutate(["--actor", "subagent:researcher", "propose", "Bob likes jazz"]);
    refused_note(&env, &["pending", "reject", "1", "--reason", &reason], pw);
    refused_note(&env, &["pending", "defer", "1", "--reason", &reason], pw);
    env.mutate(["pending", "reject", "1", "--reason", "not needed"]);
}

#[test]
fn issue_16_proposals_and_imports_scan_every_field_they_write() {
    // See: issue 16
    let env = TestEnv::initialized();
    let token = github_token();
    // The proposing agent's name is written into the proposal and the actor of its commit.
    let err = refused(
        &env,
        &["propose", "--from", &token, "Bob likes jazz"],
        None,
        "github-token",
        &token,
    );
    assert!(err.contains("the proposing agent"), "{err}");
    // A JSON escape hides a key from the scan of the raw line, not from the decoded fields.
    let key = aws_key_id();
    let escaped = format!("\\u0041{}", &key[1..]);
    for (field, line) in [
        (
            "text",
            format!(r#"{{"timestamp":"2026-05-08","speaker":"Bob","text":"note {escaped}"}}"#),
        ),
        (
            "id",
            format!(r#"{{"timestamp":"2026-05-08","speaker":"Bob","text":"hi","id":"{escaped}"}}"#),
        ),
        ("speaker", format!(r#"{{"timestamp":"2026-05-08","speaker":"{escaped}","text":"hi"}}"#)),
    ] {
        env.write("../chat.jsonl", &format!("{line}\n"));
        let err = refused(&env, &["import", "../chat.jsonl"], None, "aws-access-key-id", &key[4..]);
        assert!(err.contains(&format!("the {field} on line 1 of [TMP]/ws/../chat.jsonl")), "{err}");
    }
}

#[test]
fn issue_16_hear_refuses_a_password_said_in_plain_words() {
    // See: issue 16
    let env = TestEnv::initialized();
    for (msg, secret) in [
        ("remember that my password is hunterhunter", "hunterhunter"),
        ("remember that I use hunter2hunter2 as my password", "hunter2hunter2"),
        ("Remember: the wifi password is correcthorse for the guests", "correcthorse"),
    ] {
        refused(&env, &["hear", msg], None, "password-phrase", secret);
        refused(&env, &["hear", "--dry-run", msg], None, "password-phrase", secret);
    }
    // Talking about a password is not one.
    for msg in [
        "remember that my password is written on the fridge",
        "remember that I use 1Password as my password manager",
    ] {
        env.mutate(["hear", msg]);
    }
}

#[test]
fn issue_16_an_allowed_secret_never_becomes_a_file_name_id_or_tag() {
    // See: issue 16
    let env = TestEnv::initialized();
    let names = |env: &TestEnv| env.git(&["ls-files"]);
    // A vault note and a procedure titled by their text.
    env.mutate(["remember", "--allow-secret", "--store", "vault", "my password is Hunter2Hunter2"]);
    env.mutate([
        "remember",
        "--allow-secret",
        "--store",
        "procedural",
        "log in with password=Tr0ub4dor&3 then run the backup",
    ]);
    // What `hear` routes: tags and entities come from the message.
    env.mutate(["hear", "--allow-secret", "remember that I use hunter2hunter2 as my password"]);
    let files = names(&env);
    for secret in ["hunter2", "tr0ub4dor", "Tr0ub4dor"] {
        assert!(!files.to_lowercase().contains(&secret.to_lowercase()), "{secret} in\n{files}");
    }
    assert!(files.contains("memory/vault/my-password-is-secret.md"), "{files}");
    // The texts themselves were allowed in.
    let all: String =
        env.snapshot().iter().map(|(_, b)| String::from_utf8_lossy(b).into_owned()).collect();
    assert!(all.contains("Hunter2Hunter2") && all.contains("Tr0ub4dor&3"));
    assert!(!all.contains("tags:[fact, hunter2hunter2") && !all.contains("#hunter2hunter2"));
}

#[test]
fn issue_16_a_key_given_as_an_argument_is_not_echoed_in_a_usage_error() {
    // See: issue 16
    let env = TestEnv::initialized();
    let body = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun";
    let pem = format!("-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----");
    for args in [
        vec!["remember", pem.as_str()],
        vec!["remember", "--tags", pem.as_str(), "x"],
        vec!["hear", pem.as_str()],
        vec!["remember", "x", "--nope", pem.as_str()],
    ] {
        let out = env.run(&args).output().code(2);
        assert!(!out.stderr.contains(body) && !out.stderr.contains("MIIE"), "{args:?}:\n{out}");
        assert!(out.stderr.contains("error:"), "{args:?}:\n{out}");
    }
    // An ordinary usage error is clap's own.
    let out = env.run(["remember", "--nope", "x"]).output().code(2);
    assert!(out.stderr.contains("unexpected argument '--nope'"), "{out}");
}

#[test]
fn hear_refuses_a_remembered_credential_but_not_a_passing_one() {
    let env = TestEnv::initialized();
    let key = aws_key_id();
    let msg = format!("Remember that the deploy key id is {key}.");
    refused(&env, &["hear", &msg], None, "aws-access-key-id", &key);
    refused(&env, &["hear", "--dry-run", &msg], None, "aws-access-key-id", &key);
    // A message that asks nothing to be remembered writes nothing and is not refused.
    env.run(["hear", &format!("I rotated {key} yesterday")]).success();
    env.mutate(["hear", "--allow-secret", &msg]);
}

#[test]
fn propose_refuses_credentials_unless_allowed() {
    let env = TestEnv::initialized();
    let token = github_token();
    let text = format!("Alice's token is {token}");
    refused(
        &env,
        &["--actor", "subagent:researcher", "propose", "--entity", "person--alice", &text],
        None,
        "github-token",
        &token,
    );
    // The sub-agent cannot allow it (a person's call: roles.rs); the main agent may relay it.
    env.mutate([
        "propose",
        "--from",
        "researcher",
        "--allow-secret",
        "--entity",
        "person--alice",
        &text,
    ]);
    // Approving an allowed proposal is not refused again.
    env.mutate(["pending", "approve", "1"]);
}

#[test]
fn import_refuses_a_transcript_with_a_credential_naming_the_line() {
    let env = TestEnv::initialized();
    let key = aws_key_id();
    let jsonl = format!(
        "{{\"timestamp\":\"2026-05-08T13:56:00Z\",\"speaker\":\"Alice\",\"text\":\"Use Postgres\"}}\n\
         {{\"timestamp\":\"2026-05-08T13:57:00Z\",\"speaker\":\"Bob\",\"text\":\"key {key}\"}}\n"
    );
    env.write("../chat.jsonl", &jsonl);
    let err = refused(&env, &["import", "../chat.jsonl"], None, "aws-access-key-id", &key);
    assert!(
        err.starts_with(
            "error: line 2 of [TMP]/ws/../chat.jsonl looks like a secret (aws-access-key-id at line 2, \
             column 65: AKIA… (20 chars)); nothing was written"
        ),
        "{err}"
    );
    refused(&env, &["import", "-"], Some(&jsonl), "aws-access-key-id", &key);
    env.mutate(["import", "--allow-secret", "../chat.jsonl"]);
}

/// Sends JSON-RPC lines to `cogmem mcp` and returns the responses, by id. One request at a
/// time: each is sent once the answer to the one before has arrived (waited for with a
/// generous timeout, never a fixed pause).
pub(crate) fn mcp_calls(env: &TestEnv, calls: &[serde_json::Value]) -> Vec<serde_json::Value> {
    let init = serde_json::json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    // Each line, and the id of the answer to wait for (none for a notification).
    let mut input = vec![
        (init.to_string(), Some(0)),
        ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}".to_owned(), None),
    ];
    for (i, c) in calls.iter().enumerate() {
        let req = serde_json::json!({"jsonrpc":"2.0","id":i+1,"method":"tools/call","params":c});
        input.push((req.to_string(), Some(i as u64 + 1)));
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_cogmem"))
        .args(["mcp", "--workspace"])
        .arg(&env.root)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &env.home)
        .env("COGMEM_NOW", "2026-12-01T10:00:00Z")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = line_reader(child.stdout.take().unwrap());
    let stderr = line_reader(child.stderr.take().unwrap());
    let mut stdin = child.stdin.take().unwrap();
    let mut answers: Vec<String> = Vec::new();
    let answer_id = |l: &str| serde_json::from_str::<serde_json::Value>(l).ok()?["id"].as_u64();
    for (line, id) in input {
        if writeln!(stdin, "{line}").is_err() {
            break; // the server is gone; the count below says what is missing
        }
        let Some(id) = id else { continue };
        let deadline = Instant::now() + Duration::from_secs(120);
        while !answers.iter().any(|l| answer_id(l) == Some(id)) {
            match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(l) => answers.push(l),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => panic!("no answer to request {id}: {answers:#?}"),
            }
        }
    }
    drop(stdin);
    child.wait().unwrap();
    answers.extend(lines.iter());
    let text = answers.join("\n");
    let mut by_id: Vec<serde_json::Value> = answers
        .iter()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["id"].as_u64().is_some_and(|i| i > 0))
        .collect();
    by_id.sort_by_key(|v| v["id"].as_u64());
    assert_eq!(
        by_id.len(),
        calls.len(),
        "answers:\n{text}\nstderr:\n{}",
        stderr.iter().collect::<Vec<_>>().join("\n")
    );
    by_id
}

/// Reads `from` line by line on a thread, so neither pipe can fill up and stall the server.
fn line_reader(from: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(from).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

#[test]
fn mcp_tools_refuse_credentials_unless_allowed() {
    let env = TestEnv::initialized();
    let token = github_token();
    let text = format!("the CI token is {token}");
    let answers = mcp_calls(
        &env,
        &[
            serde_json::json!({"name":"remember","arguments":{"text":text}}),
            serde_json::json!({"name":"hear","arguments":{"message":format!("remember that {text}")}}),
            serde_json::json!({"name":"propose","arguments":{"text":text,"from":"researcher"}}),
            serde_json::json!({"name":"remember","arguments":{"text":text,"allow_secret":true}}),
            serde_json::json!({"name":"remember","arguments":{"text":"x","tags":[token]}}),
            serde_json::json!({"name":"propose","arguments":{"text":"Bob likes jazz","from":"r"}}),
            serde_json::json!({"name":"pending","arguments":{"action":"reject","number":1,"reason":format!("see {token}")}}),
        ],
    );
    for a in answers[..3].iter().chain(&answers[4..5]).chain(&answers[6..]) {
        let result = &a["result"];
        assert_eq!(result["isError"], true, "{a}");
        let msg = result["content"][0]["text"].as_str().unwrap();
        assert!(msg.contains("github-token") && msg.contains("line 1"), "{msg}");
        assert!(!msg.contains(&token), "{msg}");
    }
    assert_ne!(answers[3]["result"]["isError"], true, "{}", answers[3]);
    assert!(env.read(&format!("memory/episodes/{}.md", "2026-12-01")).contains(&token));
}

#[test]
fn scan_workspace_finds_credentials_already_in_files() {
    let env = TestEnv::initialized();
    let token = github_token();
    env.write("memory/vault/ops.md", &format!("# Ops\n\nnotes\ntoken: {token}\n"));
    env.write("memory/graph/entities/person--bob.md", "# Bob\n\nBob likes chess.\n");
    let ws = cogmem::Workspace::open(&env.root).unwrap();
    let found = cogmem::secrets::scan_workspace(&ws);
    assert_eq!(found.len(), 1, "{found:?}");
    let (path, f) = &found[0];
    assert_eq!(path, "memory/vault/ops.md");
    assert_eq!((f.rule, f.line, f.column), ("github-token", 4, 8));
    assert!(!f.excerpt.contains(&token[8..]));
}

/// Ordinary memories never make `verify` report a secret: an audit line's last word and the
/// next line's time were joined as one token split over a line break ("quarterly" and
/// "2026-12-01T09:00:00Z" after "token"), and the workspace failed `verify` for good.
#[test]
fn ordinary_memories_leave_no_secret_in_the_audit_log() {
    let env = TestEnv::initialized();
    for text in [
        "Rotate the deploy token quarterly",
        "Remember the wifi password requirement",
        "Store secrets in the keychain",
        "one more note",
    ] {
        env.mutate(["remember", text]);
    }
    env.mutate(["remember", "--store", "procedural", "--title", "/etc/passwd", "Check it"]);
    env.mutate(["remember", "and another"]);
    let out = env.run(["verify"]).output();
    assert!(!out.stdout.contains("looks like a secret"), "{out}");
    out.code(0);
}

/// Counts the scanner's findings in every file under `COGMEM_SCAN_DIR` (a false-positive
/// measurement on a real or generated workspace):
/// `COGMEM_SCAN_DIR=/tmp/ws cargo test --test it secrets::scan_a_folder -- --ignored --nocapture`
#[test]
#[ignore = "a measurement over a folder given in COGMEM_SCAN_DIR"]
fn scan_a_folder() {
    let dir = std::env::var("COGMEM_SCAN_DIR").expect("set COGMEM_SCAN_DIR");
    let (mut files, mut lines, mut found) = (0, 0, 0);
    for e in walkdir::WalkDir::new(&dir).into_iter().filter_map(Result::ok) {
        if !e.file_type().is_file() || e.path().components().any(|c| c.as_os_str() == ".git") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(e.path()) else { continue };
        files += 1;
        lines += text.lines().count();
        for f in cogmem::secrets::scan(&text) {
            found += 1;
            println!("{}:{}:{} {} {}", e.path().display(), f.line, f.column, f.rule, f.excerpt);
        }
    }
    println!("scanned {files} files, {lines} lines: {found} findings");
}

#[test]
fn issue_16_hear_shows_no_name_made_from_an_allowed_secret() {
    // See: issue 16
    let env = TestEnv::initialized();
    let msg = "remember that my password is Tr0ub4dorTr0ub4dor for Gitlab";
    let mut shown = Vec::new();
    for dry in [true, false] {
        let mut args = vec!["--json", "hear", "--allow-secret", msg];
        if dry {
            args.push("--dry-run");
        }
        let out = env.run(&args).success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let routing = &v["routing"];
        // The text is allowed in; no name made from the secret is shown.
        assert!(routing["summary"].as_str().unwrap().contains("Tr0ub4dorTr0ub4dor"), "{routing:#}");
        for field in ["tags", "entities", "relations", "reason"] {
            let text = routing[field].to_string().to_lowercase();
            assert!(!text.contains("tr0ub4dor"), "{field}: {routing:#}");
        }
        assert!(routing["tags"].to_string().contains("gitlab"), "the other tags stay: {routing:#}");
        shown.push(routing.clone());
    }
    assert_eq!(shown[0], shown[1], "the dry run shows what is written");
}

/// A token split by a carriage return, NEL or U+2028, or by blanks and a line break, is written
/// split by a line break (the writers make every break an LF and trim a line's end blanks), so
/// `verify` flagged what the scanner had let through; and a vault note's title, file name and
/// id held the token, lower-cased.
#[test]
fn a_secret_split_by_any_line_break_is_refused_as_verify_would_flag_it() {
    let env = TestEnv::initialized();
    let token = github_token();
    for br in ["\r", "\u{2028}", "\u{85}", "\u{2029}", " \n", "\t\r\n"] {
        let text = format!("note: {}{br}{}", &token[..20], &token[20..]);
        for store in ["episodic", "vault", "procedural"] {
            let args = ["remember", "--store", store, "-"];
            refused(&env, &args, Some(&text), "github-token", &token);
        }
        let routing = r#"{"stores":["episodic"]}"#;
        let args = ["remember", "--routing", routing, &text];
        refused(&env, &args, None, "github-token", &token);
        let args = ["propose", "--from", "researcher", &text];
        refused(&env, &args, None, "github-token", &token);
        let msg = format!("remember that {text}");
        refused(&env, &["hear", &msg], None, "github-token", &token);
        let line = serde_json::json!({"timestamp": "2026-05-08", "speaker": "Bob", "text": text});
        env.write("../chat.jsonl", &format!("{line}\n"));
        refused(&env, &["import", "../chat.jsonl"], None, "github-token", &token);
    }
    // Allowed in, the token is in the note, and neither in its name nor in its title.
    let text = format!("n4: {}\r{}", &token[..20], &token[20..]);
    let out =
        env.run(["remember", "--store", "vault", "--allow-secret", "-"]).stdin(text).success();
    let names = env.git(&["ls-files"]).to_lowercase();
    assert!(!names.contains(&token[4..20].to_lowercase()), "{names}\n{out}");
    assert!(!out.stderr.to_lowercase().contains(&token[4..20].to_lowercase()), "{out}");
    let note = env.read("memory/vault/n4-secret.md");
    assert!(note.starts_with("# n4: [secret]\n"), "{note}");
    assert!(note.contains(&format!("{}\n{}", &token[..20], &token[20..])), "{note}");
}

/// An entity id with a key word next to a random part (`tool--prod-api-key-3a7b…`) was taken
/// as a name, while the graph index shows it as `prod api key 3a7b…`, which `verify` flags:
/// every way an id is given is refused, and a routing answer's name is scanned as written.
#[test]
fn an_entity_id_holding_a_key_next_to_a_random_part_is_refused() {
    let env = TestEnv::initialized();
    let hex = format!("{}{}", "3a7bd3e2360a3d29", "eea436fcfb7e44c735d117c4");
    let id = format!("tool--prod-api-key-{hex}");
    let rule = "high-entropy-string";
    let err = refused(&env, &["remember", "--entity", &id, "x"], None, rule, &hex);
    assert!(err.contains("an entity id looks like a secret"), "{err}");
    refused(&env, &["remember", &format!("x [[{id}]]")], None, rule, &hex);
    refused(&env, &["propose", "--from", "r", "--entity", &id, "x"], None, rule, &hex);
    let routing = format!(
        r#"{{"stores":["semantic"],"entities":[{{"name":"prod api key {hex}","type":"tool"}}]}}"#
    );
    let err = refused(&env, &["remember", "--routing", &routing, "y"], None, rule, &hex);
    assert!(err.contains("an entity name in the routing answer"), "{err}");
    let routing = format!(r#"{{"stores":["semantic"],"entities":["{id}"]}}"#);
    refused(&env, &["remember", "--routing", &routing, "y"], None, rule, &hex);
    env.mutate(["remember", "--entity", "tool--prod-api", "x"]);
    let err = refused_without_way_out(
        &env,
        &["graph", "rename", "tool--prod-api", &id],
        None,
        rule,
        &hex,
    );
    assert!(err.contains("the new id looks like a secret"), "{err}");
    // A retype puts a type before a slug: a key word before a random part is refused too.
    env.mutate(["remember", "--entity", "secret--rotation-plan", "rotate quarterly"]);
    env.mutate(["remember", "--entity", &format!("tool--{hex}"), "a build hash"]);
    let err = refused_without_way_out(
        &env,
        &["graph", "retype", &format!("tool--{hex}"), "secret"],
        None,
        rule,
        &hex,
    );
    assert!(err.contains("the new id looks like a secret"), "{err}");
    // Ids made of words keep passing, and `verify` finds nothing.
    env.mutate(["remember", "--entity", "tool--api-key-rotation-2024", "rotate quarterly"]);
    env.mutate(["graph", "rename", "tool--prod-api", "tool--prod-api-key"]);
    let out = env.run(["verify"]).output();
    assert!(!out.stdout.contains("looks like a secret"), "{out}");
}

/// `sync` by an actor that is not a person (an agent, a bot, a system, the unnamed
/// `agent:manual`) refuses a hand edit whose new lines hold a credential, as its `remember`
/// would; a person's own edit is committed with a warning; the audit line records the place.
#[test]
fn an_agents_sync_refuses_a_credential_in_its_new_lines_and_a_persons_warns() {
    let env = TestEnv::initialized();
    let key = aws_key_id();
    env.append("MEMORY.md", &format!("- deploy key {key}\n"));
    for args in [
        &["--actor", "agent:claude", "sync"][..],
        &["--actor", "bot:ci", "sync", "--dry-run"],
        &["--actor", "system:cron", "sync"],
        &["sync"],
    ] {
        let err = refused(&env, args, None, "aws-access-key-id", &key);
        assert!(err.contains("the hand edit of MEMORY.md looks like a secret"), "{err}");
        assert!(err.contains("at line 18, column 14"), "{err}");
        // The way out is the command line's: the MCP server has no sync tool.
        assert!(err.contains("run `cogmem sync --allow-secret`"), "{err}");
        assert!(!err.contains("MCP"), "{err}");
    }
    let out = env.run(["--actor", "user:alice", "sync"]).success();
    let want = "warning: MEMORY.md:18: looks like a secret (aws-access-key-id at column 14: \
                AKIA… (20 chars)); committed\n  hint: move it out of memory";
    assert!(out.stderr.contains(want), "{out}");
    assert!(!out.stderr.contains(&key), "{out}");
    env.assert_clean_tree();
    let lines = env.audit_lines();
    let line = lines.iter().find(|l| l.contains("| EDIT | MEMORY.md | user:alice")).unwrap();
    assert!(
        line.ends_with(
            "edited by hand (+1 -0 lines); looks like a secret at line 18 (aws-access-key-id)"
        ),
        "{line}"
    );
    // Committed once, it is not refused again; a new one is, unless allowed.
    env.append("MEMORY.md", "- tea\n");
    env.mutate(["--actor", "agent:claude", "sync"]);
    let other = format!("{}{}", "ghp_", "aB3dE5gH7jK9mN1pQ3rS5tU7vW9xY1zA2bC5");
    env.write("memory/vault/ops.md", &format!("# Ops\n\ntoken {other}\n"));
    refused(&env, &["--actor", "agent:claude", "sync"], None, "github-token", &other);
    let out = env.mutate(["--actor", "agent:claude", "sync", "--allow-secret"]);
    assert!(out.stderr.contains("memory/vault/ops.md:3: looks like a secret"), "{out}");
}

/// A commit made outside cogmem exists: adoption cannot refuse it, so it warns, naming the
/// commit, the file, the line and the rule, and records the place in the file's audit line.
#[test]
fn adopting_a_plain_commit_warns_of_a_credential_and_records_it() {
    let env = TestEnv::initialized();
    let key = aws_key_id();
    env.append("MEMORY.md", &format!("- deploy key {key}\n"));
    env.git_commit_all("notes");
    let id = env.head();
    let out = env.run(["remember", "tea"]).success();
    let want = "warning: commit [HASH] MEMORY.md:18: looks like a secret (aws-access-key-id at \
                column 14: AKIA… (20 chars)); adopted\n  hint: move it out of memory";
    assert!(out.stderr.contains(want), "{out}");
    assert!(!out.stderr.contains(&key), "{out}");
    let lines = env.audit_lines();
    let line = lines.iter().find(|l| l.contains("| EDIT | MEMORY.md | tester |")).unwrap();
    let want = format!("looks like a secret at line 18 (aws-access-key-id) in commit {}", &id[..8]);
    assert!(line.ends_with(&want), "{line}");
    // The commit is adopted once, and the next command says nothing more.
    env.assert_clean_tree();
    let out = env.mutate(["remember", "coffee"]);
    assert!(!out.stderr.contains("looks like a secret"), "{out}");
}
