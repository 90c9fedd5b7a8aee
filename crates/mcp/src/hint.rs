//! Errors for MCP: an error and its hint name commands (`` `cogmem reflect request` must come
//! first``, `` run `cogmem restore ID` ``); an agent connected over MCP calls tools, so each
//! command that has a tool becomes that tool.
//! A command without a tool (`doctor`, `sync`, a person's approval), or whose tool the server
//! does not list (a sub-agent's has no writing tools), is kept, marked as one for the user to
//! run at a terminal: a hint never names a tool the agent cannot call.

use crate::Role;

/// The tools that do what a command does, longest command first where one is the start of
/// another (`forget --purge` before `forget`, `audit ack` before `audit`).
const TOOLS: &[(&str, Option<&str>)] = &[
    ("cogmem remember", Some("remember")),
    ("cogmem hear", Some("hear")),
    ("cogmem recall", Some("recall")),
    ("cogmem search", Some("search")),
    ("cogmem context", Some("context")),
    ("cogmem show", Some("show")),
    ("cogmem forget --purge", None),
    ("cogmem forget --purge-text", None),
    ("cogmem forget", Some("forget")),
    ("cogmem restore", Some("restore")),
    ("cogmem pin", Some("pin")),
    ("cogmem unpin", Some("unpin")),
    ("cogmem why", Some("why")),
    ("cogmem touch", Some("touch")),
    ("cogmem status", Some("status")),
    ("cogmem graph show", Some("graph_show")),
    ("cogmem graph neighbors", Some("graph_neighbors")),
    ("cogmem graph path", Some("graph_path")),
    ("cogmem graph history", Some("graph_history")),
    ("cogmem graph check", Some("graph_check")),
    ("cogmem graph stats", Some("graph_stats")),
    ("cogmem graph export", Some("graph_export")),
    ("cogmem graph relation list", Some("graph_relations")),
    ("cogmem graph relation add", None),
    ("cogmem supersede", Some("supersede")),
    ("cogmem graph rename", Some("graph_rename")),
    ("cogmem graph retype", Some("graph_retype")),
    ("cogmem graph merge", None),
    ("cogmem reflect status", Some("reflect_status")),
    ("cogmem reflect request", Some("reflect_request")),
    ("cogmem reflect input", Some("reflect_input")),
    ("cogmem reflect submit", Some("reflect_submit")),
    ("cogmem identity consolidate input", Some("identity_input")),
    ("cogmem identity consolidate submit", Some("identity_submit")),
    ("cogmem identity consolidate show", Some("identity_show")),
    ("cogmem audit ack", None),
    ("cogmem audit compact", None),
    ("cogmem audit", Some("audit")),
    ("cogmem log", Some("audit")),
    ("cogmem decay", Some("decay")),
    ("cogmem propose", Some("propose")),
    ("cogmem pending", Some("pending")),
    ("cogmem flag list", Some("flag_list")),
    ("cogmem flag resolve", None),
];

/// The tool that does what `command` (a whole command line, `cogmem …`) does, if one does.
fn tool_for(command: &str) -> Option<&'static str> {
    let at_word_end = |rest: &str| rest.is_empty() || rest.starts_with(' ');
    TOOLS
        .iter()
        .filter(|(cli, _)| command.strip_prefix(cli).is_some_and(at_word_end))
        .max_by_key(|(cli, _)| cli.len())
        .and_then(|(_, tool)| *tool)
}

/// What a command's flag is for a tool: `Some(param)` its parameter (`all` for `search
/// --all`), `None` dropped (`--json`: a tool answers in JSON anyway; `forget --dry-run`: the
/// `forget` tool describes unless confirmed); a flag not listed becomes the parameter of its
/// name (`--dry-run` → `dry_run`).
const FLAGS: &[(&str, &str, Option<&str>)] = &[
    ("*", "--json", None),
    ("remember", "--entity", Some("entities")),
    ("remember", "--store", Some("stores")),
    ("remember", "--relation", Some("relations")),
    ("forget", "--dry-run", None),
    ("forget", "--yes", Some("confirm")),
    ("forget", "--id", None),
];

/// Flags that make a command one no tool does (`forget --permanent` deletes for good, `forget
/// --force` takes a pinned memory: the `forget` tool does neither).
const NO_TOOL: &[(&str, &str)] = &[("forget", "--permanent"), ("forget", "--force")];

/// Whether a word is a placeholder written in capitals (`ID`, `N`, `TEXT`, `TYPE--NAME`).
fn placeholder(w: &str) -> bool {
    !w.is_empty() && w.chars().all(|c| c.is_ascii_uppercase() || matches!(c, '_' | '.' | '-'))
}

/// The tool for `command`, and its arguments for that tool: the words after the command's
/// (the longest command `TOOLS` knows) without placeholders, and its flags as parameters
/// (`all=true`, `limit=5`). A forget by words (`cogmem forget QUERY`) is the `search` tool's
/// work on MCP, where `forget` takes an id. `None` when no tool does it.
fn tool_and_arguments(command: &str) -> Option<(&'static str, String)> {
    let named = tool_for(command)?;
    let mut tool = named;
    let rest = TOOLS
        .iter()
        .filter_map(|(cli, _)| {
            command.strip_prefix(cli).filter(|r| r.is_empty() || r.starts_with(' '))
        })
        .min_by_key(|rest| rest.len())
        .unwrap_or("");
    let words: Vec<&str> = rest.split(' ').filter(|w| !w.is_empty()).collect();
    if tool == "forget" {
        if words.iter().any(|w| NO_TOOL.contains(&(tool, *w))) {
            return None;
        }
        if words.first().is_some_and(|w| !w.starts_with("--") && *w != "ID" && placeholder(w)) {
            tool = "search";
        }
    }
    if named == "pending" {
        // The tool takes the subcommand as its `action` (`list_all` for `list --all`) and the
        // proposal as its `number`: `pending show 3` is `action=show number=3`.
        let Some(&action) = words.first().filter(|w| !w.starts_with("--")) else {
            return Some((tool, String::new()));
        };
        let action = if action == "list" && words.contains(&"--all") { "list_all" } else { action };
        let mut out = vec![format!("action={action}")];
        if let Some(n) = words.get(1).filter(|w| w.parse::<u32>().is_ok()) {
            out.push(format!("number={n}"));
        }
        if words.contains(&"--reason") {
            out.push("reason".to_owned());
        }
        return Some((tool, out.join(" ")));
    }
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        i += 1;
        if let Some(name) = w.strip_prefix("--") {
            // A value after the flag, if one follows it.
            let value = words.get(i).filter(|v| !v.starts_with("--")).copied();
            let param = FLAGS
                .iter()
                .find(|(t, f, _)| (*t == named || *t == "*") && *f == w)
                .map_or_else(|| Some(name.replace('-', "_")), |(.., p)| p.map(str::to_owned));
            let takes_value =
                value.is_some() && param.is_some() && !matches!(w, "--all" | "--yes" | "--dry-run");
            if takes_value || value.is_some_and(placeholder) {
                i += 1;
            }
            match (param, takes_value.then_some(value).flatten()) {
                // The parameter to fill, named (`entities`), for a flag whose value the hint
                // leaves to the agent; an id's flag (`--id ID`) has none (FLAGS).
                (Some(p), Some(v)) if placeholder(v) => out.push(p),
                (Some(p), Some(v)) => out.push(format!("{p}={v}")),
                (Some(p), None) => out.push(format!("{p}=true")),
                (None, _) => {}
            }
        } else if !placeholder(w) {
            out.push(w.to_owned());
        }
    }
    Some((tool, out.join(" ")))
}

/// The command line's flags that are a tool's arguments under another name, as errors name
/// them: `--tags` is `tags`.
const ARGUMENTS: &[(&str, &str)] = &[
    ("--at", "at"),
    ("--tags", "tags"),
    ("--title", "title"),
    ("--section", "section"),
    ("--extra", "extra"),
    ("--penalty", "penalty"),
];

/// `err` with the flags it names renamed to the tool's arguments ([`ARGUMENTS`]): `--tags
/// applies only to …` becomes `tags applies only to …`, and its hint asks for arguments too.
/// `None` when it names no flag.
pub(crate) fn with_arguments(err: &cogmem_ops::Error) -> Option<cogmem_ops::Error> {
    use cogmem_ops::error::InputError;
    let cogmem_ops::Error::Store(cogmem_store::Error::Input(input)) = err else {
        return None;
    };
    let argument = |flag: &str| ARGUMENTS.iter().find(|(f, _)| *f == flag).map(|(_, a)| *a);
    let renamed = match input {
        InputError::FlagNeedsStore { flag, stores } => {
            InputError::FlagNeedsStore { flag: argument(flag)?, stores }
        }
        InputError::ReflectReason { what } => InputError::ReflectReason { what: argument(what)? },
        InputError::Time { flag, text } => {
            InputError::Time { flag: argument(flag)?, text: text.clone() }
        }
        _ => return None,
    };
    Some(renamed.into())
}

/// Rewrites an error's text for an agent on MCP: `` `cogmem restore ID` `` becomes `` the `restore`
/// tool ``; a command no tool does, or whose tool a server for `role` does not list, is kept and
/// marked as the user's to run.
pub(crate) fn for_mcp(hint: &str, role: Role) -> String {
    let mut out = String::with_capacity(hint.len());
    let mut rest = hint;
    // The last tool call said, for "A or B" where B says no more than A.
    let mut last: Option<(String, usize)> = None;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else { break };
        let quoted = &rest[open + 1..open + 1 + len];
        out.push_str(&rest[..open]);
        if quoted.starts_with("cogmem ") {
            match tool_and_arguments(quoted).filter(|(tool, _)| role.lists(tool)) {
                Some((tool, args)) => {
                    // A real id or value the hint carries stays with it; a placeholder (`ID`,
                    // `N`) says nothing the tool's schema does not.
                    let mut said = format!("the `{tool}` tool");
                    if !args.is_empty() {
                        said.push_str(" with `");
                        said.push_str(&args);
                        said.push('`');
                    }
                    // "A or B" where B comes out as A's tool call, or less of it, says A.
                    let right_after = |(l, end): &(String, usize)| {
                        out.len() == end + " or ".len()
                            && out.ends_with(" or ")
                            && l.starts_with(&said)
                    };
                    if last.as_ref().is_some_and(right_after) {
                        out.truncate(out.len() - " or ".len());
                        rest = &rest[open + len + 2..];
                        continue;
                    }
                    out.push_str(&said);
                    last = Some((said, out.len()));
                }
                None => {
                    out.push('`');
                    out.push_str(quoted);
                    out.push_str("` (ask the user to run it in a terminal)");
                }
            }
        } else {
            out.push('`');
            out.push_str(quoted);
            out.push('`');
        }
        rest = &rest[open + len + 2..];
    }
    out.push_str(rest);
    out
}

/// What an answer that names commands says to an agent on MCP. `hear`: an `action.command`
/// (the command that forgets the clear best candidate) gets `action.call`, the `forget` tool call
/// that does it, and the commands quoted in `action.message` and `routing.reason` name their
/// tools. `reflect_status`: `next_tools`, the tools among `next` (the commands allowed now) that
/// the agent may call; the rest are the user's, at a terminal. The CLI's members stay as they are.
/// Only tools a server for `role` lists are named: a sub-agent's `hear` has no `action.call`.
pub(crate) fn for_mcp_answer(tool: &str, value: &mut serde_json::Value, role: Role) {
    use serde_json::{Value, json};
    match tool {
        "hear" => {
            if let Some(action) = value.get_mut("action").and_then(Value::as_object_mut) {
                let id = action
                    .get("candidates")
                    .and_then(|c| c.get(0))
                    .and_then(|c| c.get("id"))
                    .cloned();
                if action.get("command").is_some_and(Value::is_string)
                    && role.lists("forget")
                    && let Some(id) = id
                {
                    let call =
                        json!({ "tool": "forget", "arguments": { "id": id, "confirm": true } });
                    action.insert("call".to_owned(), call);
                }
                if let Some(Value::String(m)) = action.get_mut("message") {
                    *m = for_mcp(m, role);
                }
            }
            let reasons = value.pointer_mut("/routing/reason").and_then(Value::as_array_mut);
            for r in reasons.into_iter().flatten() {
                if let Value::String(s) = r {
                    *s = for_mcp(s, role);
                }
            }
        }
        "reflect_status" => {
            let tools: Vec<&str> = value
                .get("next")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter_map(tool_for)
                .filter(|tool| role.lists(tool))
                .collect();
            if let Some(o) = value.as_object_mut() {
                o.insert("next_tools".to_owned(), json!(tools));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_name_the_tool_that_does_the_command() {
        let cases = [
            ("run `cogmem restore ID` to undo it", "run the `restore` tool to undo it"),
            (
                "unpin it first with `cogmem unpin vault:x`",
                "unpin it first with the `unpin` tool with `vault:x`",
            ),
            ("see `cogmem pending show 3`", "see the `pending` tool with `action=show number=3`"),
            ("`cogmem pending list --all`", "the `pending` tool with `action=list_all`"),
            (
                "`cogmem pending reject N --reason TEXT`",
                "the `pending` tool with `action=reject reason`",
            ),
            ("run `cogmem reflect input`", "run the `reflect_input` tool"),
            (
                "erase it with `cogmem forget --purge ID --yes`",
                "erase it with `cogmem forget --purge ID --yes` (ask the user to run it in a terminal)",
            ),
            (
                "run `cogmem doctor --fix`",
                "run `cogmem doctor --fix` (ask the user to run it in a terminal)",
            ),
            ("edit `MEMORY.md` by hand", "edit `MEMORY.md` by hand"),
            ("a lone ` quote", "a lone ` quote"),
            ("`cogmem pinned`", "`cogmem pinned` (ask the user to run it in a terminal)"),
            (
                "undo with: `cogmem restore 'episode:2026-02-02:14:30'`",
                "undo with: the `restore` tool with `'episode:2026-02-02:14:30'`",
            ),
            ("see `cogmem why person--kenji`", "see the `why` tool with `person--kenji`"),
            // Flags become the tool's parameters, or go where the tool has none.
            (
                "find ids with `cogmem search QUERY --all` or `cogmem forget QUERY --dry-run`",
                "find ids with the `search` tool with `all=true`",
            ),
            (
                "find ids with `cogmem forget QUERY --dry-run` or `cogmem search QUERY`",
                "find ids with the `search` tool",
            ),
            (
                "`cogmem flag list --all` lists them",
                "the `flag_list` tool with `all=true` lists them",
            ),
            ("see `cogmem status --json`", "see the `status` tool"),
            (
                "`cogmem search x` lists them, or `cogmem search x`",
                "the `search` tool with `x` lists them, or the `search` tool with `x`",
            ),
            ("then `cogmem forget --id ID --yes`", "then the `forget` tool with `confirm=true`"),
            (
                "move details into entities with `cogmem remember --entity TYPE--NAME TEXT`, or \
                 keep this in the vault with `cogmem remember --store vault TEXT`",
                "move details into entities with the `remember` tool with `entities`, or keep \
                 this in the vault with the `remember` tool with `stores=vault`",
            ),
            ("run `cogmem decay --dry-run`", "run the `decay` tool with `dry_run=true`"),
            ("`cogmem search atlas --limit 5`", "the `search` tool with `atlas limit=5`"),
            (
                "then `cogmem forget --id ID --permanent --yes`",
                "then `cogmem forget --id ID --permanent --yes` (ask the user to run it in a terminal)",
            ),
            (
                "forget it with `cogmem forget --id vault:x --force` instead",
                "forget it with `cogmem forget --id vault:x --force` (ask the user to run it in a terminal) instead",
            ),
        ];
        for (hint, want) in cases {
            assert_eq!(for_mcp(hint, Role::Main), want, "hint: {hint:?}");
        }
    }
    #[test]
    fn a_sub_agent_is_pointed_only_at_tools_it_has() {
        let cases = [
            (
                "the main agent will see #1; `cogmem pending show 1` prints it",
                "the main agent will see #1; `cogmem pending show 1` (ask the user to run it in a \
                 terminal) prints it",
            ),
            (
                "next: `cogmem reflect request`",
                "next: `cogmem reflect request` (ask the user to run it in a terminal)",
            ),
            ("see `cogmem search x`", "see the `search` tool with `x`"),
            (
                "then `cogmem forget --id ID --yes`",
                "then `cogmem forget --id ID --yes` (ask the user to run it in a terminal)",
            ),
        ];
        for (hint, want) in cases {
            assert_eq!(for_mcp(hint, Role::Subagent), want, "hint: {hint:?}");
        }
        let heard = || {
            serde_json::json!({ "action": {
                "command": "cogmem forget --id episode:x --yes",
                "candidates": [{ "id": "episode:x" }],
                "message": "next: `cogmem reflect request`",
            }})
        };
        let mut main = heard();
        for_mcp_answer("hear", &mut main, Role::Main);
        assert_eq!(main["action"]["call"]["tool"], "forget", "{main}");
        assert_eq!(main["action"]["message"], "next: the `reflect_request` tool", "{main}");
        let mut sub = heard();
        for_mcp_answer("hear", &mut sub, Role::Subagent);
        assert!(sub["action"].get("call").is_none(), "{sub}");
        assert!(!sub["action"]["message"].as_str().unwrap().contains("the `"), "{sub}");
        let status =
            || serde_json::json!({ "next": ["cogmem reflect request", "cogmem reflect input"] });
        let mut main = status();
        for_mcp_answer("reflect_status", &mut main, Role::Main);
        assert_eq!(main["next_tools"], serde_json::json!(["reflect_request", "reflect_input"]));
        let mut sub = status();
        for_mcp_answer("reflect_status", &mut sub, Role::Subagent);
        assert_eq!(sub["next_tools"], serde_json::json!(["reflect_input"]));
    }
    #[test]
    fn errors_name_the_tool_arguments_for_the_flags() {
        use cogmem_ops::error::InputError;
        let text = |e: InputError| {
            let e: cogmem_ops::Error = e.into();
            let e = with_arguments(&e).expect("renamed");
            format!("{e} / {}", e.hint().unwrap_or_default())
        };
        assert_eq!(
            text(InputError::FlagNeedsStore {
                flag: "--tags",
                stores: "episodic, semantic or vault"
            }),
            "tags applies only to the episodic, semantic or vault store, which this memory does not \
             go to / add `episodic` to `stores`, or drop `tags`"
        );
        assert_eq!(
            text(InputError::ReflectReason { what: "--penalty" }),
            "penalty needs a reason / give `penalty_reason` too, or drop `penalty`"
        );
        assert!(text(InputError::Time { flag: "--at", text: "x".into() }).starts_with("at: "));
        let other: cogmem_ops::Error =
            InputError::Time { flag: "--since", text: "x".into() }.into();
        assert!(with_arguments(&other).is_none());
    }
}
