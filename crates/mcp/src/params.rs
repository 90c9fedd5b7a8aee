//! The arguments of every tool: one struct each, read the way the matching command reads its
//! flags. Unknown arguments are refused (`deny_unknown_fields`), so a misspelt option is an
//! error rather than silently ignored.

use schemars::JsonSchema;
use serde::Deserialize;

/// Integer arguments read as JSON Schema reads `integer`: a number with no fractional part,
/// written `1` or `1.0` (Python hosts write floats), never `1.5`. Each function reads the
/// argument of its name, which its error names (`limit: 1.5 is not a whole number`); the
/// schema stays the field's own type, an integer.
mod whole {
    use serde::{Deserialize, Deserializer, de::Error};
    use serde_json::Value;

    /// A field's type that a whole number fills: an integer, or an optional one.
    pub(crate) trait Whole: Sized {
        /// The value for `n`, `None` when it does not fit.
        fn from_whole(n: u64) -> Option<Self>;
        /// The value for `null`, `None` when the field needs a number.
        fn from_null() -> Option<Self>;
    }

    macro_rules! whole_int {
        ($($t:ty),*) => {$(
            impl Whole for $t {
                fn from_whole(n: u64) -> Option<Self> {
                    Self::try_from(n).ok()
                }
                fn from_null() -> Option<Self> {
                    None
                }
            }
            impl Whole for Option<$t> {
                fn from_whole(n: u64) -> Option<Self> {
                    <$t>::try_from(n).ok().map(Some)
                }
                fn from_null() -> Option<Self> {
                    Some(None)
                }
            }
        )*};
    }
    whole_int!(usize, u32, u64);

    /// The largest whole number a float holds exactly (2^53).
    const EXACT: f64 = 9_007_199_254_740_992.0;

    /// Reads the argument `name` as a whole number.
    fn read<'de, D: Deserializer<'de>, T: Whole>(d: D, name: &str) -> Result<T, D::Error> {
        let value = Value::deserialize(d)?;
        if value.is_null() {
            return T::from_null()
                .ok_or_else(|| D::Error::custom(format!("{name}: null is not a whole number")));
        }
        let n = match &value {
            Value::Number(n) => n.as_u64().or_else(|| {
                // A float with no fractional part, exact (under 2^53), not negative.
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && (0.0..=EXACT).contains(f))
                    .map(|f| f as u64)
            }),
            _ => None,
        };
        let Some(n) = n else {
            return Err(D::Error::custom(format!("{name}: {value} is not a whole number")));
        };
        T::from_whole(n).ok_or_else(|| D::Error::custom(format!("{name}: {value} is too large")))
    }

    macro_rules! whole_fields {
        ($($name:ident),*) => {$(
            #[doc = concat!("Reads the `", stringify!($name), "` argument as a whole number.")]
            pub(crate) fn $name<'de, D: Deserializer<'de>, T: Whole>(d: D) -> Result<T, D::Error> {
                read(d, stringify!($name))
            }
        )*};
    }
    whole_fields!(limit, budget, depth, number, commits, extra, penalty);
}

/// Arguments of `remember`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RememberParams {
    /// The text to remember (at most `limits.text_bytes`, 64 KiB by default).
    pub(crate) text: String,
    /// Stores to write to: core, episodic, semantic, procedural, vault. Default: episodic, or
    /// semantic when entities or relations are given.
    #[serde(default)]
    pub(crate) stores: Vec<String>,
    /// Entities the fact is about, as TYPE--SLUG, e.g. `person--alice` (or its memory id,
    /// `entity:person--alice`).
    #[serde(default)]
    pub(crate) entities: Vec<String>,
    /// Relations between entities, as `FROM|RELATION|TO`, e.g.
    /// `person--alice|works-on|project--atlas`. RELATION must be in the vocabulary
    /// (`memory/graph/relations.md`; `cogmem graph relation list`): an unknown one is refused
    /// with the nearest names.
    #[serde(default)]
    pub(crate) relations: Vec<String>,
    /// Tags, e.g. `["db", "alice"]`.
    #[serde(default)]
    pub(crate) tags: Vec<String>,
    /// How sure the memory is: high (default), medium, low.
    pub(crate) confidence: Option<String>,
    /// Episode entry type: decision, fact, preference, task, event, emotion, correction.
    #[serde(rename = "type")]
    pub(crate) entry_type: Option<String>,
    /// When it happened, for the episode entry (default: now): RFC 3339, `YYYY-MM-DD HH:MM`,
    /// `YYYY-MM-DD`, `HH:MM`, an age (`2h`) or relative words (`yesterday`, `next friday`,
    /// `3 days ago`, `昨日`, `3日前`). Relative dates inside `text` get their absolute date
    /// written next to them (`tomorrow (2026-12-02)`).
    pub(crate) at: Option<String>,
    /// MEMORY.md section for the core store: identity, active-context, persona,
    /// critical-facts.
    pub(crate) section: Option<String>,
    /// Title of the procedure or vault note (default: the text's first line or words).
    pub(crate) title: Option<String>,
    /// Route by a model's answer to the routing prompt (`cogmem route --prompt`), as its JSON
    /// text; then stores, type, entities, relations, tags, confidence, section and title must
    /// not be given.
    pub(crate) routing: Option<String>,
    /// Write the text even if it looks like a credential (a key, a token, `password=`…);
    /// without it such text is refused.
    #[serde(default)]
    pub(crate) allow_secret: bool,
}

impl RememberParams {
    /// The arguments given that a routing answer decides, in the order the tool lists them.
    pub(crate) fn decided_by_routing(&self) -> Vec<&'static str> {
        [
            ("stores", !self.stores.is_empty()),
            ("entities", !self.entities.is_empty()),
            ("relations", !self.relations.is_empty()),
            ("tags", !self.tags.is_empty()),
            ("confidence", self.confidence.is_some()),
            ("type", self.entry_type.is_some()),
            ("section", self.section.is_some()),
            ("title", self.title.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, given)| given.then_some(name))
        .collect()
    }
}

/// Arguments of `hear`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct HearParams {
    /// The user's message, word for word.
    pub(crate) message: String,
    /// Detect and route, but write nothing (always on for a sub-agent).
    #[serde(default)]
    pub(crate) dry_run: bool,
    /// Remember the message even if it looks like a credential; without it such a message is
    /// refused.
    #[serde(default)]
    pub(crate) allow_secret: bool,
}

/// Arguments of `recall`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecallParams {
    /// What to recall: keywords or a plain question. Dates and times named by an event are
    /// read: "what did Alice decide in June?", "what changed the week before the launch?".
    pub(crate) query: String,
    /// At most this many results (default 10).
    #[serde(default, deserialize_with = "whole::limit")]
    pub(crate) limit: Option<usize>,
    /// Include dormant memories (archived ones never come back).
    #[serde(default)]
    pub(crate) all: bool,
}

/// Arguments of `search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchParams {
    /// What to search for: keywords or a plain question. Dates and times named by an event are
    /// read: "when did we switch CI?", "what did Bob say after the offsite?".
    pub(crate) query: String,
    /// Only this store: core, episodic, semantic, procedural, vault.
    pub(crate) store: Option<String>,
    /// At most this many results (default 10).
    #[serde(default, deserialize_with = "whole::limit")]
    pub(crate) limit: Option<usize>,
    /// Include dormant memories (archived ones never come back).
    #[serde(default)]
    pub(crate) all: bool,
    /// Also answer how the query was read, as `reading`: the answer it wants, who it asks
    /// about, its terms, the terms added, and the days it names with what named them (for an
    /// event, the memory whose date it took). For when the hits are not what was expected.
    #[serde(default)]
    pub(crate) explain: bool,
}

/// Arguments of `context`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ContextParams {
    /// What the conversation is about; without it, the most relevant recent episodes.
    pub(crate) query: Option<String>,
    /// The most tokens the pack may take (counted with cl100k_base).
    #[serde(deserialize_with = "whole::budget")]
    pub(crate) budget: usize,
}

/// Arguments of `show`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ShowParams {
    /// The memory's id, as `recall` or `search` report it (`episode:…`, `entity:…`,
    /// `procedure:…`, `vault:…`, `core:…`), an entity as `TYPE--SLUG`, or the start of exactly
    /// one id.
    pub(crate) id: String,
}

/// Arguments of `forget`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ForgetParams {
    /// The memory's id, as `recall` or `search` report it (`episode:…`, `entity:…`,
    /// `procedure:…`, `vault:…`, `core:…`), an entity as `TYPE--SLUG`, or the start of exactly
    /// one id.
    pub(crate) id: String,
    /// Forget it. Without `true`, nothing is forgotten: the memory is described instead.
    #[serde(default)]
    pub(crate) confirm: bool,
}

/// Arguments of `graph_neighbors`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NeighborsParams {
    /// The entity: its id (`TYPE--SLUG`, or `entity:TYPE--SLUG`), a name or alias only it has,
    /// or the start of exactly one entity id.
    pub(crate) entity: String,
    /// How many hops (default 1).
    #[serde(default, deserialize_with = "whole::depth")]
    pub(crate) depth: Option<usize>,
    /// Follow only relations that held on this date: `YYYY-MM-DD`, or any form `audit`'s
    /// `since` takes (`yesterday`, `last week`, `先月`; a week or month stands for its first day).
    pub(crate) as_of: Option<String>,
}

/// Arguments of `propose`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProposeParams {
    /// The memory to propose (at most `limits.text_bytes`, 64 KiB by default).
    pub(crate) text: String,
    /// Suggested store: episodic, semantic, procedural, vault or core. Default: semantic
    /// with entities or relations, else episodic.
    pub(crate) store: Option<String>,
    /// Entities it is about, as TYPE--SLUG (or `entity:TYPE--SLUG`).
    #[serde(default)]
    pub(crate) entities: Vec<String>,
    /// Relations, as `FROM|RELATION|TO`; RELATION must be in the vocabulary
    /// (`memory/graph/relations.md`), else the proposal is refused.
    #[serde(default)]
    pub(crate) relations: Vec<String>,
    /// How sure you are: high, medium (default), low.
    pub(crate) confidence: Option<String>,
    /// Whether it belongs in core memory, in your view.
    #[serde(default)]
    pub(crate) core_worthy: bool,
    /// The proposing agent's name; default: the server's `--agent`.
    pub(crate) from: Option<String>,
    /// Propose the text even if it looks like a credential; without it such text is refused.
    #[serde(default)]
    pub(crate) allow_secret: bool,
}

/// Arguments of `pending`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PendingParams {
    /// `list` (open proposals), `list_all`, `show`, `approve`, `reject` or `defer`.
    pub(crate) action: String,
    /// The proposal's number (all actions but the lists).
    #[serde(default, deserialize_with = "whole::number")]
    pub(crate) number: Option<u32>,
    /// For `approve`: write to this store instead of the suggested one.
    pub(crate) store: Option<String>,
    /// For `reject` (required) and `defer`: why.
    pub(crate) reason: Option<String>,
}

/// Arguments of a tool that takes none: any argument is refused.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoParams {}

/// Arguments of the tools that take one memory id: `restore`, `pin`, `unpin`, `why`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct IdParams {
    /// The memory's id, as `recall`, `search` or `status` report it, e.g.
    /// `entity:person--alice` or `core:active-context:7fc6c745`; an entity also as
    /// `person--alice`; or the start of exactly one id (`episode:2026-02-02:14`).
    pub(crate) id: String,
}

/// Arguments of `status`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct StatusParams {
    /// How many recent commits to list (default 5).
    #[serde(default, deserialize_with = "whole::commits")]
    pub(crate) commits: Option<usize>,
}

/// Arguments of `flag_list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FlagListParams {
    /// List resolved flags too (default false).
    #[serde(default)]
    pub(crate) all: bool,
}

/// Arguments of `graph_show`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GraphShowParams {
    /// The entity: its id (`TYPE--SLUG`, or `entity:TYPE--SLUG`), a name or alias only it has,
    /// or the start of exactly one entity id.
    pub(crate) entity: String,
    /// Show what held on this date instead of today: `YYYY-MM-DD`, or any form `audit`'s
    /// `since` takes (`yesterday`, `last week`, `先月`; a week or month stands for its first day).
    pub(crate) as_of: Option<String>,
}

/// Arguments of `graph_history`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EntityParams {
    /// The entity: its id (`TYPE--SLUG`, or `entity:TYPE--SLUG`), a name or alias only it has,
    /// or the start of exactly one entity id.
    pub(crate) entity: String,
}

/// Arguments of `graph_export`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExportParams {
    /// `mermaid` (a flowchart that renders on git forges), `dot` (Graphviz) or `json`
    /// (default).
    pub(crate) format: Option<String>,
    /// Only this entity's neighbourhood (its id, `entity:` id, a name only it has, or the
    /// start of one id).
    pub(crate) around: Option<String>,
    /// Hops around `around` (default 2).
    #[serde(default, deserialize_with = "whole::depth")]
    pub(crate) depth: Option<usize>,
}

/// Arguments of `graph_path`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct PathParams {
    /// One end: an entity id (`TYPE--SLUG` or `entity:TYPE--SLUG`), a name or alias only it
    /// has, or the start of exactly one entity id.
    pub(crate) from: String,
    /// The other end.
    pub(crate) to: String,
}

/// Arguments of `graph_rename`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RenameParams {
    /// The entity: its id (TYPE--SLUG), or a name or alias only it has.
    pub(crate) old: String,
    /// Its new id, TYPE--SLUG; refused when another entity has it.
    pub(crate) new: String,
}

/// Arguments of `graph_retype`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RetypeParams {
    /// The entity: its id (TYPE--SLUG), or a name or alias only it has.
    pub(crate) entity: String,
    /// The new type (person, project, concept, tool, place, organization, preference,
    /// decision, event, or a type the workspace already uses); the slug stays.
    #[serde(rename = "type")]
    pub(crate) kind: String,
}

/// Arguments of `supersede`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SupersedeParams {
    /// The entity that no longer holds (its id, `entity:` id, a name only it has, or the
    /// start of one id).
    pub(crate) old: String,
    /// The entity that replaces it.
    pub(crate) by: String,
    /// Why, for the timeline and the commit.
    pub(crate) reason: Option<String>,
}

/// Arguments of `reflect_request`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RequestParams {
    /// Extra tokens to ask for, above the baseline.
    #[serde(default, deserialize_with = "whole::extra")]
    pub(crate) extra: u64,
    /// Why you ask for the extra tokens.
    pub(crate) extra_reason: Option<String>,
    /// Tokens to take off your own budget.
    #[serde(default, deserialize_with = "whole::penalty")]
    pub(crate) penalty: u64,
    /// Why you take the penalty.
    pub(crate) penalty_reason: Option<String>,
}

/// Arguments of `reflect_submit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReflectionParams {
    /// The reflection, in the format the reflection input's instructions give (its OPERATION
    /// blocks are validated).
    pub(crate) text: String,
    /// Store the reflection even if it looks like it holds a credential.
    #[serde(default)]
    pub(crate) allow_secret: bool,
}

/// Arguments of `identity_submit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConsolidationParams {
    /// The answer: the new Self-Image section and the monthly summaries, in the format the
    /// consolidation input's instructions give.
    pub(crate) text: String,
}

/// Arguments of `audit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuditParams {
    /// Only lines since a date (`2026-02-02`), a time (RFC 3339), an age (`90m`, `12h`, `7d`,
    /// `2w`) or relative words (`yesterday`, `last week` — from its Monday —, `3 days ago`,
    /// `先週`, `3日前`).
    pub(crate) since: Option<String>,
    /// Only lines by this actor or actors under it (`bot` matches `bot:trigger-remember`).
    pub(crate) actor: Option<String>,
    /// Only lines with this action (create, edit, append, archive, …).
    pub(crate) action: Option<String>,
    /// Only lines about this file or files under this folder.
    pub(crate) file: Option<String>,
    /// Only critical-file changes, their alerts and acknowledgements.
    #[serde(default)]
    pub(crate) critical: bool,
    /// Only the last N matching lines.
    #[serde(default, deserialize_with = "whole::limit")]
    pub(crate) limit: Option<usize>,
}

/// Arguments of `decay`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DecayParams {
    /// Show what would change; write nothing.
    #[serde(default)]
    pub(crate) dry_run: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_arguments_take_floats_with_no_fractional_part_and_name_the_argument_otherwise() {
        let status = |json: &str| {
            serde_json::from_str::<StatusParams>(json).map(|p| p.commits).map_err(|e| e.to_string())
        };
        assert_eq!(status(r#"{"commits":1.0}"#), Ok(Some(1)));
        assert_eq!(status(r#"{"commits":3}"#), Ok(Some(3)));
        assert_eq!(status(r#"{"commits":null}"#), Ok(None));
        assert_eq!(status("{}"), Ok(None));
        for (json, words) in [
            (r#"{"commits":1.5}"#, "commits: 1.5 is not a whole number"),
            (r#"{"commits":-1}"#, "commits: -1 is not a whole number"),
            (r#"{"commits":"2"}"#, "commits: \"2\" is not a whole number"),
        ] {
            let err = status(json).unwrap_err();
            assert!(err.contains(words), "{json}: {err}");
        }
        let budget = |json: &str| {
            serde_json::from_str::<ContextParams>(json).map(|p| p.budget).map_err(|e| e.to_string())
        };
        assert_eq!(budget(r#"{"budget":300.0}"#), Ok(300));
        assert!(budget("{}").unwrap_err().contains("missing field `budget`"));
        assert!(budget(r#"{"budget":null}"#).unwrap_err().contains("budget: null"));
        let number = serde_json::from_str::<PendingParams>(r#"{"action":"show","number":1e10}"#);
        assert!(number.unwrap_err().to_string().contains("number: 10000000000.0 is too large"));
        let extra = serde_json::from_str::<RequestParams>(r#"{"extra":5.0}"#).unwrap();
        assert_eq!((extra.extra, extra.penalty), (5, 0));
    }
}
