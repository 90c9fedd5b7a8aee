//! The `outputSchema` of every tool: the shape of the JSON object its structured content is.
//!
//! The report types live in the operations crates, which do not depend on schemars, so the
//! schemas are written here, one line per top-level member: its JSON type, whether it may be
//! `null` (`?`) and whether it may be absent (`~`). Members deeper down are described by their
//! type only. The MCP test has the official client validate every tool's answer against its
//! schema, so a report that changes shape fails there. Every schema's root is an object, as MCP
//! requires; a command whose `--json` is a list answers with an object holding that list.

use std::sync::Arc;

use rmcp::model::JsonObject;
use serde_json::{Value, json};

/// The members of each tool's answer: `(name, type)`, where type is a JSON type name, `any`,
/// and may end in `?` (may be null) and then `~` (may be absent).
fn members(tool: &str) -> &'static [(&'static str, &'static str)] {
    match tool {
        "remember" => &[
            ("commit", "string?"),
            ("written", "array"),
            ("duplicates", "array"),
            ("revived", "array"),
            ("files", "array"),
        ],
        "hear" => &[
            ("trigger", "string?"),
            ("phrase", "string?"),
            ("content", "string?"),
            ("routing", "object?"),
            ("action", "object"),
        ],
        "recall" => &[("groups", "array")],
        "search" => &[("hits", "array"), ("reading", "object~")],
        "context" => &[
            ("budget_tokens", "integer"),
            ("used_tokens", "integer"),
            ("text", "string"),
            ("receipt", "array"),
        ],
        "show" => {
            &[("unit", "object"), ("why", "object?"), ("tokens", "integer"), ("context", "array")]
        }
        "forget" => &[
            ("forgotten", "array"),
            ("candidates", "array~"),
            ("commit", "string?~"),
            ("already_forgotten", "array~"),
            ("permanent", "boolean~"),
            ("files", "array~"),
        ],
        "restore" => &[("commit", "string"), ("id", "string"), ("files", "array")],
        "pin" | "unpin" => &[("commit", "string?"), ("id", "string"), ("pinned", "boolean")],
        "why" => &[
            ("id", "string"),
            ("inputs", "object"),
            ("age", "number"),
            ("clock", "string"),
            ("lambda", "number"),
            ("score", "number"),
            ("band", "string"),
            ("formula", "string"),
            ("has_entry", "boolean"),
            ("flags", "array"),
        ],
        "status" => &[
            ("workspace", "string"),
            ("counts", "object"),
            ("uncommitted", "array"),
            ("git_state", "string~"),
            ("recent_commits", "array"),
            ("index", "string"),
            ("watcher", "boolean"),
            ("unacknowledged_critical", "array"),
            ("integrity_problems", "array"),
            ("open_flags", "integer"),
            ("skipped", "array"),
        ],
        "flag_list" => &[("flags", "array"), ("skipped", "array")],
        "graph_show" | "graph_history" => {
            &[("node", "object"), ("forgotten", "boolean"), ("links", "array")]
        }
        "graph_check" => &[("findings", "array")],
        "graph_relations" => &[("relations", "array")],
        "graph_stats" => &[
            ("nodes", "integer"),
            ("merged", "integer"),
            ("edges", "integer"),
            ("current_edges", "integer"),
            ("components", "integer"),
            ("hubs", "array"),
            ("dangling", "integer"),
        ],
        "graph_export" => &[("format", "string"), ("text", "string")],
        "touch" => &[("id", "string")],
        "graph_neighbors" => &[("neighbors", "array")],
        "graph_path" => &[("path", "array?")],
        "supersede" => &[("commit", "string?"), ("trace", "array")],
        "graph_rename" | "graph_retype" => {
            &[("commit", "string"), ("old", "string"), ("new", "string"), ("files", "array")]
        }
        "reflect_status" => &[
            ("state", "string"),
            ("description", "string"),
            ("waiting_for", "string"),
            ("next", "array"),
            ("next_tools", "array"),
            ("reflection", "integer"),
            ("rewards_file", "string?"),
            ("requested", "integer?"),
            ("granted", "integer?"),
            ("last_reflection", "string?"),
            ("self_awareness_since_consolidation", "integer"),
            ("consolidation_due", "boolean"),
            ("consolidation_pending", "boolean"),
        ],
        "reflect_request" => &[
            ("reflection", "integer"),
            ("state", "string"),
            ("file", "string"),
            ("tokens", "integer~"),
            ("commit", "string"),
        ],
        "reflect_input" => &[
            ("reflection", "integer"),
            ("granted", "integer"),
            ("budget_tokens", "integer"),
            ("used_tokens", "integer"),
            ("sections", "array"),
            ("cut", "array"),
            ("episodes_since", "string"),
            ("elements", "array"),
            ("text", "string"),
        ],
        "reflect_submit" => &[
            ("reflection", "integer"),
            ("operations", "array"),
            ("blocks", "array"),
            ("self_awareness", "array"),
            ("commit", "string"),
        ],
        "identity_input" => &[
            ("entries_since", "integer"),
            ("self_image", "string"),
            ("archived", "array"),
            ("recent", "array"),
            ("text", "string"),
        ],
        "identity_submit" => &[("diff", "string"), ("commit", "string")],
        "identity_show" => &[("diff", "string")],
        "audit" => &[("lines", "array"), ("skipped", "array")],
        "decay" => &[
            ("commit", "string?"),
            ("dry_run", "boolean"),
            ("now", "string"),
            ("entries", "integer"),
            ("folded_uses", "integer"),
            ("created", "array"),
            ("transitions", "array"),
            ("archived", "array"),
            ("clock", "string"),
        ],
        "propose" => &[
            ("number", "integer"),
            ("status", "string"),
            ("conflicts_with", "integer?"),
            ("conflicts_with_fact", "string?"),
            ("commit", "string"),
        ],
        // `list`: the proposals; `show`: one proposal; the decisions: what was decided.
        "pending" => &[
            ("proposals", "array~"),
            ("number", "integer~"),
            ("status", "string~"),
            ("commit", "string?~"),
            ("remembered", "object~"),
            // `show`: the proposal's own fields (`pending show --json`).
            ("from", "string~"),
            ("timestamp", "string~"),
            ("trigger", "string~"),
            ("store", "string~"),
            ("content", "string~"),
            ("entities", "array~"),
            ("relations", "array~"),
            ("confidence", "string~"),
            ("core_worthy", "boolean~"),
            ("status_note", "string~"),
            ("conflicts_with", "integer?~"),
            ("decision", "any~"),
            ("line", "integer~"),
        ],
        other => unreachable!("no output schema for the tool `{other}`"),
    }
}

/// The `outputSchema` of `tool`.
pub(crate) fn output(tool: &str) -> Arc<JsonObject> {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for (name, kind) in members(tool) {
        let (kind, absent) = kind.strip_suffix('~').map_or((*kind, false), |k| (k, true));
        let (kind, null) = kind.strip_suffix('?').map_or((kind, false), |k| (k, true));
        let schema = match (kind, null) {
            ("any", _) => json!({}),
            (k, true) => json!({ "type": [k, "null"] }),
            (k, false) => json!({ "type": k }),
        };
        properties.insert((*name).to_owned(), schema);
        if !absent {
            required.push(Value::from(*name));
        }
    }
    let schema = json!({ "type": "object", "properties": properties, "required": required });
    let Value::Object(object) = schema else { unreachable!("built as an object") };
    Arc::new(object)
}
