//! Errors for MCP: an error and its hint name commands (`` `cogmem reflect request` must come
//! first``, `` run `cogmem restore ID` ``); an agent connected over MCP calls tools, so each
//! command that has a tool becomes that tool.
//! A command without a tool (`doctor`, `sync`, a person's approval) is kept, marked as one for
//! the user to run at a terminal.

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

/// What follows the command words of `command` (the longest command `TOOLS` knows), without
/// placeholders written in capitals (`ID`, `N`, `TEXT`).
fn arguments(command: &str) -> String {
    let words = TOOLS
        .iter()
        .filter_map(|(cli, _)| {
            command.strip_prefix(cli).filter(|r| r.is_empty() || r.starts_with(' '))
        })
        .min_by_key(|rest| rest.len())
        .unwrap_or("");
    let placeholder = |w: &str| {
        !w.is_empty() && w.chars().all(|c| c.is_ascii_uppercase() || c == '_' || c == '.')
    };
    words.split(' ').filter(|w| !w.is_empty() && !placeholder(w)).collect::<Vec<_>>().join(" ")
}

/// Rewrites an error's text for an agent on MCP: `` `cogmem restore ID` `` becomes `` the `restore`
/// tool ``; a command no tool does is kept and marked as the user's to run.
pub(crate) fn for_mcp(hint: &str) -> String {
    let mut out = String::with_capacity(hint.len());
    let mut rest = hint;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else { break };
        let quoted = &rest[open + 1..open + 1 + len];
        out.push_str(&rest[..open]);
        if quoted.starts_with("cogmem ") {
            match tool_for(quoted) {
                Some(tool) => {
                    out.push_str("the `");
                    out.push_str(tool);
                    out.push_str("` tool");
                    // A real id or value the hint carries stays with it; a placeholder (`ID`,
                    // `N`) says nothing the tool's schema does not.
                    let args = arguments(quoted);
                    if !args.is_empty() {
                        out.push_str(" with `");
                        out.push_str(&args);
                        out.push('`');
                    }
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
            ("see `cogmem pending show 3`", "see the `pending` tool with `show 3`"),
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
        ];
        for (hint, want) in cases {
            assert_eq!(for_mcp(hint), want, "hint: {hint:?}");
        }
    }
}
