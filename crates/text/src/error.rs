//! Errors about a request or a rule, and the kinds every cogmem error is sorted into. Pure values:
//! the store and operation layers wrap them in their own error types, and the adapters build their
//! output from [`ErrorKind`] and the `hint` of each enum.

use std::path::PathBuf;

/// Who is at fault, which decides the exit code and how the error is presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Bad input, no workspace, a malformed file the command needs: exit 1.
    User,
    /// Refused by a rule (a budget, an approval gate, a role): exit 4.
    Conflict,
    /// A bug or a broken environment: exit 70.
    Internal,
}

/// `; nearest: `a`, `b`` for an unknown name's error, or nothing when none is near.
fn nearest_names(names: &[String]) -> String {
    if names.is_empty() {
        return "; no known relation is close".into();
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    format!("; nearest: {}", quoted.join(", "))
}

/// Names in backticks, separated by commas: `` `a`, `b` ``.
fn quoted_names(names: &[&str]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// A request that cannot be carried out as given.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The memory text is empty or only whitespace.
    #[error("the text to remember is empty")]
    EmptyText,
    /// The memory text is larger than the limit.
    #[error(
        "the text is {bytes} bytes; the limit is {limit} bytes (`limits.text_bytes` in cogmem.toml)"
    )]
    TextTooLong {
        /// Size of the text.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// Text read from stdin larger than any setting allows (16 MiB, the most
    /// `limits.text_bytes` may be).
    #[error(
        "the text is {bytes} bytes; no setting allows more than {limit} bytes (the most \
         `limits.text_bytes` may be)"
    )]
    TextOverHardLimit {
        /// Size of the whole text.
        bytes: u64,
        /// The hard limit.
        limit: usize,
    },
    /// A text field holds a NUL byte, which no file or commit of a workspace can hold.
    #[error("the {field} contains a NUL byte (at byte {offset}), which cannot be stored")]
    Nul {
        /// The field (`text`, `title`…).
        field: &'static str,
        /// The byte offset of the first NUL.
        offset: usize,
    },
    /// The text is not valid UTF-8 (stdin).
    #[error("the text read from stdin is not valid UTF-8")]
    NotUtf8,
    /// An entity id that cannot be used as a file name.
    #[error("invalid entity id {id:?}: {why}")]
    EntityId {
        /// The id as given.
        id: String,
        /// What is wrong with it.
        why: String,
    },
    /// A `--relation` that is not `FROM|REL|TO`.
    #[error("invalid relation {text:?}: {why}")]
    Relation {
        /// The relation as given.
        text: String,
        /// What is wrong with it.
        why: String,
    },
    /// A name (store, type, section, confidence…) outside its vocabulary.
    #[error("unknown {what} {value:?}; expected one of: {expected}")]
    Unknown {
        /// What kind of name it is.
        what: &'static str,
        /// The value given.
        value: String,
        /// The accepted values.
        expected: String,
    },
    /// `COGMEM_NOW` is not an RFC 3339 time.
    #[error("COGMEM_NOW={value:?} is not an RFC 3339 time")]
    Clock {
        /// The variable's value.
        value: String,
    },
    /// A date or time flag (or MCP argument) whose value the date reader cannot read.
    #[error("{flag}: cannot read {text:?} as a date or time")]
    Time {
        /// The flag (`--since`) or MCP argument (`since`) it was given to.
        flag: &'static str,
        /// The text given.
        text: String,
    },
    /// A relation the vocabulary (`memory/graph/relations.md`) does not define.
    #[error(
        "unknown relation `{relation}`: {} does not define it{}",
        path.display(),
        nearest_names(nearest)
    )]
    UnknownRelation {
        /// The relation as given.
        relation: String,
        /// The vocabulary file.
        path: PathBuf,
        /// The nearest known names, closest first.
        nearest: Vec<String>,
        /// The subject's and the object's entity types, for the hint's `--signature`.
        types: Option<(String, String)>,
    },
    /// A relation `graph relation add` cannot add: the name is taken or malformed.
    #[error("cannot add relation `{name}` to {}: {why}", path.display())]
    RelationAdd {
        /// The name (or inverse) refused.
        name: String,
        /// The vocabulary file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// An actor name that cannot go into an audit line or a git author.
    #[error(
        "invalid actor {actor:?}: use letters, digits and `:_.-` only, with a name after a `:` \
         (`subagent:researcher`)"
    )]
    Actor {
        /// The actor as given.
        actor: String,
    },
    /// A sub-agent named as an actor of another kind (`subagent:user:alice`, `--agent
    /// user:alice`), which would then be shown and filed under a person's or a bot's name.
    #[error("a sub-agent cannot be named `{name}`: `{kind}:` is another kind of actor")]
    SubagentName {
        /// The name given after `subagent:`.
        name: String,
        /// Its kind (`user`, `agent`, `bot`, `system`, `subagent`).
        kind: String,
    },
    /// An MCP tool's action called without an argument it needs (`pending` with action
    /// `approve` and no `number`).
    #[error("`{tool}` with action `{action}` needs `{arg}`: {what}")]
    MissingArgument {
        /// The tool.
        tool: &'static str,
        /// The action given.
        action: String,
        /// The argument it needs.
        arg: &'static str,
        /// What the argument is.
        what: &'static str,
    },
    /// `mcp --role main --agent NAME`: the main agent's server asked for under a sub-agent's
    /// name, which the server refuses rather than serve every tool to a sub-agent.
    #[error("`--agent {name}` names a sub-agent, but `--role main` serves the main agent")]
    MainAgentNamed {
        /// The name given with `--agent`.
        name: String,
    },
    /// A query matched several memories equally, and there is no terminal to ask on.
    #[error("{count} memories match equally well; pick one")]
    Ambiguous {
        /// How many matched.
        count: usize,
    },
    /// An answer to "forget which?" that is not one of the numbers shown.
    #[error("{text:?} is not one of the numbers shown")]
    Choice {
        /// The answer.
        text: String,
    },
    /// `--permanent` without an exact id and confirmation.
    #[error("permanent deletion needs an exact `--id` and `--yes`")]
    PermanentNeedsId,
    /// A bad line in an import, with `--strict`.
    #[error("{file}:{line}: {why}")]
    ImportLine {
        /// The file imported, as given (`<stdin>` for standard input).
        file: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// A query without a searchable word.
    #[error("the query {query:?} has no words to search for")]
    EmptyQuery {
        /// The query as given.
        query: String,
    },
    /// `forget` without a query or an id.
    #[error("nothing to forget: give words to find the memory by, or an --id")]
    NothingToForget,
    /// No entity has this id, name or alias, and no entity id starts with it.
    #[error("no entity has the id, name or alias {name:?}")]
    UnknownEntity {
        /// The name given.
        name: String,
        /// The nearest entity ids, for the hint (at most five).
        nearest: Vec<String>,
    },
    /// No proposal has this number.
    #[error("there is no proposal #{number} in memory/meta/pending-memories.md")]
    UnknownProposal {
        /// The number given.
        number: u32,
    },
    /// No flag has this number.
    #[error("there is no flag #{number} in memory/meta/flags.md")]
    UnknownFlag {
        /// The number given.
        number: u32,
    },
    /// A well-formed entity id with no entity file.
    #[error("there is no entity {id} yet")]
    MissingEntity {
        /// The id given.
        id: String,
        /// The nearest entity ids, for the hint (at most five).
        nearest: Vec<String>,
    },
    /// Both sides of a graph operation are the same entity.
    #[error("cannot {what} {id} with itself")]
    SameEntity {
        /// The entity.
        id: String,
        /// The operation.
        what: &'static str,
    },
    /// No memory has this id, and no memory id starts with it.
    #[error("no memory has the id {id:?}")]
    UnknownId {
        /// The id given.
        id: String,
        /// The nearest memory ids, for the hint (at most five).
        nearest: Vec<String>,
    },
    /// No commit of the workspace's history has this id (the web view's audit page).
    #[error("no commit of the workspace has the id {rev:?}")]
    UnknownCommit {
        /// The id given.
        rev: String,
    },
    /// An id's start (or an entity's name) shared by several ids.
    #[error("{given:?} could be any of {count} {what}")]
    AmbiguousId {
        /// What was given.
        given: String,
        /// `memory ids` or `entities`.
        what: &'static str,
        /// How many ids it could be.
        count: usize,
        /// The first of them (at most ten), in order.
        listed: Vec<String>,
    },
    /// `restore` on a memory that is not forgotten.
    #[error("{id} is not forgotten, so there is nothing to restore")]
    NotForgotten {
        /// The id given.
        id: String,
    },
    /// A flag that only applies to stores that were not chosen.
    #[error("{flag} applies only to the {stores} store, which this memory does not go to")]
    FlagNeedsStore {
        /// The flag (`--tags`) or MCP argument (`tags`).
        flag: &'static str,
        /// The stores it applies to.
        stores: &'static str,
    },
    /// The semantic store was chosen without an entity to put the fact on.
    #[error("the semantic store needs an entity to hold the fact")]
    SemanticWithoutEntity,
    /// Arguments that cannot be given together (MCP's `remember` with `routing` and a field
    /// the routing answer decides).
    #[error("`{arg}` cannot be given with {}: {why}", quoted_names(others))]
    ArgumentConflict {
        /// The argument that excludes the others.
        arg: &'static str,
        /// The arguments given with it, in the order the tool lists them.
        others: Vec<&'static str>,
        /// Why not.
        why: &'static str,
    },
    /// A text argument over the workspace's `limits.text_bytes` (an MCP search query).
    #[error(
        "{arg}: the text is {bytes} bytes; the limit is {limit} bytes (`limits.text_bytes` in \
         cogmem.toml)"
    )]
    ArgumentTooLong {
        /// The argument (`query`).
        arg: &'static str,
        /// Its size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A message passed to `hear` over the workspace's `limits.text_bytes`.
    #[error(
        "the message is {bytes} bytes; `hear` takes at most {limit} bytes (`limits.text_bytes` \
         in cogmem.toml)"
    )]
    MessageTooLong {
        /// Its size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A routing answer from the host model that cannot be used.
    #[error("invalid routing answer: {why}")]
    Routing {
        /// What is wrong with it.
        why: String,
    },
    /// An OPERATION block of a reflection that cannot be used.
    #[error("reflection block {block}: {why}")]
    ReflectBlock {
        /// 1-based block number.
        block: usize,
        /// What is wrong with it.
        why: String,
    },
    /// A post-reflection dialogue that cannot be read (issue 19).
    #[error("{source_name}:{line}: {why}")]
    Dialogue {
        /// The file it came from, or `stdin`.
        source_name: String,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        why: String,
    },
    /// An OPERATION block whose change the memory it writes refuses, as it refuses the same
    /// change from `remember` (an unknown relation, a bad entity id): the block and that error.
    #[error("reflection block {block}: {error}")]
    ReflectWrite {
        /// 1-based block number.
        block: usize,
        /// Why the memory refuses it (its hint is the hint).
        error: Box<Self>,
    },
    /// A reflection handed in with no text.
    #[error("the reflection is empty")]
    EmptyReflection,
    /// A proposal rejected (or deferred with a reason) whose reason is empty.
    #[error("a {decision} needs a reason, and the reason given is empty")]
    EmptyReason {
        /// `reject` or `defer`.
        decision: &'static str,
    },
    /// An extra or a penalty in a reward request without its reason.
    #[error("{what} needs a reason")]
    ReflectReason {
        /// The flag (`--extra`) or MCP argument (`extra`).
        what: &'static str,
    },
    /// A self-image consolidation that cannot be used.
    #[error("invalid self-image consolidation: {why}")]
    Consolidation {
        /// What is wrong with it.
        why: String,
    },
    /// An import file larger than `limits.import_bytes`.
    #[error("the import is over the limit of {limit} bytes (`limits.import_bytes` in cogmem.toml)")]
    ImportTooLarge {
        /// The limit.
        limit: u64,
    },
    /// An import that would make one day's episode file larger than `limits.file_bytes`, the
    /// largest file every command reads whole.
    #[error(
        "the import would make {file} larger than {limit} bytes (`limits.file_bytes` in cogmem.toml); nothing was imported"
    )]
    ImportDayTooLarge {
        /// The day's file, relative to the workspace.
        file: String,
        /// The limit.
        limit: u64,
    },
    /// A `cogmem setup` request that cannot be carried out as asked.
    #[error("{why}")]
    Setup {
        /// What is wrong.
        why: String,
        /// What to do instead.
        hint: String,
    },
    /// A name that would become a path, but could lead outside the workspace.
    #[error("invalid {what} {value:?}: {why}")]
    UnsafePath {
        /// What the name is (`entity id`, `memory id`…).
        what: &'static str,
        /// The name as given (control characters escaped).
        value: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// A title that yields no usable file name.
    #[error("cannot make a file name from {title:?}")]
    Slug {
        /// The title given.
        title: String,
    },
}

/// A command line that lets through what looks like a credential where no MCP tool can.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllowCommand {
    /// `cogmem sync --allow-secret`: an agent's sync of hand edits.
    Sync,
}

impl AllowCommand {
    /// The command, as the hint gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sync => "cogmem sync --allow-secret",
        }
    }
}

/// A change refused by one of the workspace's rules.
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    /// The text looks like a credential (see `cogmem_store::secrets`).
    #[error(
        "{what} looks like a secret ({rule} at line {line}, column {column}: {excerpt}); nothing was written"
    )]
    Secret {
        /// What was checked: `the text`, `line 3 of the import`…
        what: String,
        /// The rule that matched.
        rule: &'static str,
        /// 1-based line within the text.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
        /// A redacted excerpt, never the whole secret.
        excerpt: String,
        /// Whether `--allow-secret` can write it anyway (not for a reason or a note).
        allowable: bool,
        /// The command that writes it anyway when only the command line can (`cogmem sync
        /// --allow-secret`: the MCP server has no sync tool); `None` where the refused command's
        /// `--allow-secret` (MCP: `allow_secret: true`) does.
        allow_command: Option<AllowCommand>,
    },
    /// `forget --purge` needs a clean working tree and a branch to rewrite.
    #[error("cannot purge: {why}")]
    Purge {
        /// Why not.
        why: String,
        /// What to do instead.
        hint: String,
    },
    /// A pinned (vault) memory cannot be forgotten without force.
    #[error("{id} is pinned and cannot be forgotten")]
    Pinned {
        /// The memory's id.
        id: String,
    },
    /// Vault notes are always pinned.
    #[error("{id} is in the vault, where memories are always pinned")]
    VaultPinned {
        /// The memory's id.
        id: String,
    },
    /// A sub-agent tried to write to a store directly.
    #[error("{actor} is a sub-agent; sub-agents may only propose memories, not write them")]
    SubagentWrite {
        /// The actor.
        actor: String,
    },
    /// A sub-agent asked to let what looks like a credential into a proposal.
    #[error("{actor} is a sub-agent; only a person may let what looks like a secret into memory")]
    SubagentSecret {
        /// The actor.
        actor: String,
    },
    /// A sub-agent tried to file a proposal under another agent's name.
    #[error("{actor} may propose only as itself, not as `{from}`")]
    ProposerMismatch {
        /// The sub-agent.
        actor: String,
        /// The name it gave.
        from: String,
    },
    /// A proposal repeats one that is still open.
    #[error("the same memory is already proposed, as #{number}")]
    DuplicateProposal {
        /// The open proposal.
        number: u32,
    },
    /// A proposal that was already committed or rejected.
    #[error("proposal #{number} is already {status}")]
    ProposalClosed {
        /// The proposal.
        number: u32,
        /// Its status.
        status: &'static str,
    },
    /// A flag a person already resolved.
    #[error("flag #{number} is already resolved")]
    FlagResolved {
        /// The flag.
        number: u32,
    },
    /// A reflection step run out of order.
    #[error("`{command}` is out of order: the reflection is {state}; `{first}` must come first")]
    ReflectOrder {
        /// The command refused.
        command: String,
        /// The state in words.
        state: &'static str,
        /// The step(s) allowed now.
        first: String,
    },
    /// A pending submission (a reflection, a self-image consolidation) is not what its submit
    /// command wrote: edited by hand since (the edit committed or not).
    #[error(
        "{}: {what} differs from what `{submit}` wrote (commit {commit}); it is approved only as it was submitted",
        path.display()
    )]
    SubmissionChanged {
        /// The pending file.
        path: PathBuf,
        /// The pending file, relative to the workspace root.
        rel: &'static str,
        /// What it holds, for the message: `the pending reflection`.
        what: &'static str,
        /// The command that submits it.
        submit: &'static str,
        /// The command that rejects it.
        reject: &'static str,
        /// The submit commit, short.
        commit: String,
    },
    /// `reflect decide` once the reward is decided.
    #[error(
        "the reward for reflection #{reflection} is already decided: {decision}, {tokens} tokens; it is decided once per reflection"
    )]
    RewardDecided {
        /// The reflection.
        reflection: u32,
        /// The decision word (`Approved`, `Bonus`, …).
        decision: String,
        /// The tokens granted, with thousands separators.
        tokens: String,
        /// Whether the reflection is submitted already (awaiting approval).
        submitted: bool,
    },
    /// An agent tried to take a decision reserved to a person.
    #[error(
        "{actor} is not a person; only the user (`user:NAME`, or `manual` at a terminal) may {what}"
    )]
    NotUser {
        /// The actor.
        actor: String,
        /// What it tried.
        what: &'static str,
    },
    /// A self-image consolidation asked for before enough insights accumulated.
    #[error(
        "a self-image consolidation is not due: {count} self-awareness entries since the last one, {needed} are needed"
    )]
    ConsolidationNotDue {
        /// Entries so far.
        count: u64,
        /// Entries needed.
        needed: u64,
    },
    /// A reflection proposes to archive or rewrite a pinned memory.
    #[error("reflection block {block}: {id} is pinned and cannot be {what}")]
    ReflectPinned {
        /// 1-based block number.
        block: usize,
        /// The memory.
        id: String,
        /// `archived` or `rewritten`.
        what: &'static str,
    },
    /// Approving a reflection would take MEMORY.md over its token budget: the whole approval
    /// is refused, naming the bullets to archive first.
    ///
    /// When archiving every unpinned bullet MEMORY.md holds now would not be enough, `archive`
    /// is empty and the message says so.
    #[error(
        "{}: approving this reflection would make core memory {tokens} tokens, over its budget of {budget}; {}",
        path.display(),
        if archive.is_empty() {
            format!("archiving would not bring it back within (the unpinned bullets MEMORY.md holds now come to {archivable} tokens)")
        } else {
            format!("archive first (lowest scored, unpinned): {}", archive.join("; "))
        }
    )]
    ReflectCoreBudget {
        /// MEMORY.md.
        path: PathBuf,
        /// Estimated size after the approval.
        tokens: usize,
        /// The budget.
        budget: usize,
        /// The core bullets to archive, lowest score first, as `ID "text"`, enough to fit; empty
        /// when no set of them is enough.
        archive: Vec<String>,
        /// The first of them, for the hint's command.
        first: String,
        /// The tokens archiving every unpinned bullet MEMORY.md holds now would free.
        archivable: usize,
    },
    /// Writing to MEMORY.md would exceed its token budget.
    #[error(
        "{}: adding this would make core memory {tokens} tokens, over its budget of {budget}",
        path.display()
    )]
    CoreBudget {
        /// MEMORY.md.
        path: PathBuf,
        /// Estimated size after the write.
        tokens: usize,
        /// The budget.
        budget: usize,
    },
    /// `graph rename`/`graph retype` to an id another entity already has.
    #[error("cannot rename {old} to {new}: {new} already exists")]
    EntityExists {
        /// The entity being renamed.
        old: String,
        /// The id asked for.
        new: String,
    },
}

impl InputError {
    /// Returns the next step to take, with the command in backticks, where there is one.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            Self::EmptyText => {
                "pass the text as an argument, or `-` to read it from stdin".into()
            }
            Self::TextTooLong { .. } => {
                "split it into smaller memories, or raise `limits.text_bytes` in cogmem.toml"
                    .into()
            }
            Self::TextOverHardLimit { .. } => "split it into smaller memories".into(),
            Self::Nul { field, .. } => {
                format!("remove the NUL bytes from the {field} (for a file: `tr -d '\\000'`)")
            }
            Self::NotUtf8 => "convert the input to UTF-8 first".into(),
            Self::EntityId { .. } => {
                "entity ids are `TYPE--SLUG` in lower-kebab case, e.g. `person--alice-smith`".into()
            }
            Self::Relation { .. } => {
                "write relations as `FROM|RELATION|TO`, e.g. `person--alice|works-on|project--atlas`"
                    .into()
            }
            Self::Ambiguous { .. } => "forget one of them with `cogmem forget --id ID --yes`".into(),
            Self::Choice { .. } => "answer with the numbers in front of the memories".into(),
            Self::PermanentNeedsId => {
                "run `cogmem forget QUERY --dry-run` to find the id, then `cogmem forget --id ID --permanent --yes`".into()
            }
            Self::ImportLine { .. } => {
                "each line needs `timestamp`, `speaker` (or `role`) and `text`; drop --strict to skip bad lines".into()
            }
            Self::EmptyQuery { .. } => {
                "search for words or names; very common words (the, and, of) are not indexed".into()
            }
            Self::UnknownEntity { nearest, .. } => match did_you_mean(nearest) {
                Some(near) => near,
                None => "use the entity id (TYPE--SLUG); `cogmem graph stats` lists the most \
                         connected ones"
                    .into(),
            },
            Self::MissingEntity { id, nearest } => {
                let create = format!(
                    "`cogmem remember --entity {} \"…\"` creates it",
                    crate::shell::quote(id)
                );
                match did_you_mean(nearest) {
                    Some(near) => format!("{near} ({create})"),
                    None => format!("{create}; check the id with `cogmem search`"),
                }
            }
            Self::SameEntity { .. } => "name two different entities".into(),
            Self::UnknownProposal { .. } => {
                "`cogmem pending list --all` lists every proposal with its number".into()
            }
            Self::UnknownFlag { .. } => {
                "`cogmem flag list --all` lists every flag with its number".into()
            }
            Self::UnknownId { nearest, .. } => did_you_mean(nearest).unwrap_or_else(|| {
                "find ids with `cogmem search QUERY --all` or `cogmem forget QUERY --dry-run`"
                    .into()
            }),
            Self::UnknownCommit { .. } => {
                "give a commit id (or its first 7 or more characters): the audit page links each \
                 line to its commit, and `git log` lists them"
                    .into()
            }
            Self::AmbiguousId { count, listed, .. } => {
                let more = count.saturating_sub(listed.len());
                let more = if more > 0 { format!(" (and {more} more)") } else { String::new() };
                format!("give one in full: {}{more}", ticked(listed))
            }
            Self::NothingToForget => {
                "name what to forget: `cogmem forget WORDS`, or `cogmem forget --id ID --yes`".into()
            }
            Self::NotForgotten { .. } => {
                "list forgotten memories with `cogmem audit --action archive`".into()
            }
            Self::FlagNeedsStore { flag, stores } => {
                let first = stores.split([' ', ',']).next().unwrap_or(stores);
                if flag.starts_with("--") {
                    format!("add `--store {first}`, or drop the flag")
                } else {
                    format!("add `{first}` to `stores`, or drop `{flag}`")
                }
            }
            Self::ReflectBlock { .. } => {
                "fix the block and submit again (one already submitted: approve the other blocks \
                 with `--only`, or `cogmem reflect reject` it and submit a fixed one); \
                 `cogmem reflect input` shows the OPERATION format"
                    .into()
            }
            Self::Consolidation { .. } => {
                "`cogmem identity consolidate input` shows the two sections to answer with".into()
            }
            Self::ReflectWrite { error, .. } => return error.hint(),
            Self::EmptyReflection => "write its OPERATION blocks (`cogmem reflect input` ends with the \
                                      instructions) into the file, or pipe them to `-`"
                .into(),
            Self::EmptyReason { decision } => format!(
                "say why with `--reason TEXT` (`cogmem pending {decision} N --reason TEXT`; MCP: \
                 the `reason` argument)"
            ),
            Self::ReflectReason { what } if !what.starts_with("--") => {
                format!("give `{what}_reason` too, or drop `{what}`")
            }
            Self::ReflectReason { what } => format!(
                "add `--reason TEXT` after `{what} N` (MCP: the `{}_reason` argument)",
                what.trim_start_matches('-')
            ),
            Self::Dialogue { .. } => "start each turn on its own line with `User:` or `Agent:`; \
                                      `cogmem reflect dialogue --help` shows the format"
                .into(),
            Self::ImportTooLarge { .. } => {
                "split the transcript into smaller files, or raise `limits.import_bytes` in cogmem.toml"
                    .into()
            }
            Self::ImportDayTooLarge { .. } => {
                "raise `limits.file_bytes` in cogmem.toml (every command reads a day's file whole), \
                 or import fewer of that day's messages"
                    .into()
            }
            Self::Setup { hint, .. } => hint.clone(),
            Self::UnsafePath { .. } => {
                "names that become file names use letters, digits and `-` (entity ids are \
                 `TYPE--SLUG`); no `/`, `\\`, `..`, NUL or absolute paths"
                    .into()
            }
            Self::Unknown { value, expected, .. } => {
                // The nearest of the single-word values listed (`episodicc` → `episodic`).
                let words = expected.split(", ").filter(|w| !w.contains(' '));
                let near = crate::suggest::nearest(value, words, 1);
                return near.first().map(|w| format!("did you mean `{w}`?"));
            }
            Self::SubagentName { .. } => {
                "name the sub-agent by itself, without a kind: `--agent researcher`, or `--actor \
                 subagent:researcher`"
                    .into()
            }
            Self::MissingArgument { tool, action, arg, .. } => format!(
                "call `{tool}` with `\"action\": \"{action}\", \"{arg}\": N`; `{tool}` with \
                 `\"action\": \"list\"` shows each one's {arg}"
            ),
            Self::MainAgentNamed { name } => {
                let name = crate::shell::quote(name);
                format!(
                    "for a sub-agent pass `--agent {name}` (it implies `--role subagent`); for \
                     the main agent drop `--agent`"
                )
            }
            Self::Actor { .. } | Self::Slug { .. } => {
                return None;
            }
            Self::Clock { .. } => {
                "set COGMEM_NOW to a time like `2026-02-02T15:30:00Z`, or unset it to use the system clock"
                    .into()
            }
            Self::Time { flag, .. } => format!("{flag} takes {}", crate::date::FORMS),
            Self::UnknownRelation { relation, types, .. } => {
                let signature = types
                    .as_ref()
                    .map(|(from, to)| format!(" --signature '{from}->{to}'"))
                    .unwrap_or_default();
                format!(
                    "use a relation `cogmem graph relation list` shows, or add this one: `cogmem \
                     graph relation add {relation} --inverse INVERSE{signature}` (INVERSE is its \
                     name read from the other end, e.g. `maintained-by` for `maintains`)"
                )
            }
            Self::RelationAdd { .. } => {
                "names are lower-kebab (`works-on`) and new; see them with `cogmem graph relation list`"
                    .into()
            }
            Self::SemanticWithoutEntity => {
                "name the entity with `--entity TYPE--SLUG`, e.g. `--entity person--alice`".into()
            }
            Self::ArgumentConflict { arg, others, .. } => {
                format!("drop {}, or drop `{arg}`", quoted_names(others))
            }
            Self::ArgumentTooLong { arg, .. } => {
                format!("shorten `{arg}` to its key words")
            }
            Self::MessageTooLong { .. } => {
                "pass the user's request alone (`remember that …`), not the text around it; keep \
                 a long text with `cogmem remember` (split) or `cogmem import`, or raise \
                 `limits.text_bytes` in cogmem.toml"
                    .into()
            }
            Self::Routing { .. } => {
                "answer with the JSON object `cogmem route --prompt` asks for; see docs/cli.md".into()
            }
        })
    }
}

/// `did you mean …?` with the near ids, each in backticks and quoted for the shell; `None`
/// when there are none.
fn did_you_mean(nearest: &[String]) -> Option<String> {
    match nearest {
        [] => None,
        [one] => Some(format!("did you mean {}?", ticked(std::slice::from_ref(one)))),
        more => Some(format!("did you mean one of {}?", ticked(more))),
    }
}

/// Ids in backticks, quoted for the shell, separated by commas.
fn ticked(ids: &[String]) -> String {
    ids.iter().map(|id| format!("`{}`", crate::shell::quote(id))).collect::<Vec<_>>().join(", ")
}

impl RuleError {
    /// Returns the next step to take, with the command in backticks.
    pub fn hint(&self) -> Option<String> {
        match self {
            Self::Secret { allowable: true, allow_command: Some(cmd), .. } => Some(format!(
                "keep credentials in a password manager, not in memory: take it out of the file; \
                 if this is not a secret, run `{}`",
                cmd.as_str()
            )),
            Self::Secret { allowable: true, allow_command: None, .. } => Some(
                "keep credentials in a password manager, not in memory; if this is not a secret, \
                 pass `--allow-secret` (MCP: `allow_secret: true`)"
                    .into(),
            ),
            Self::Secret { what, allowable: false, .. } => Some(format!(
                "keep credentials in a password manager, not in memory; write {what} without it"
            )),
            Self::Purge { hint, .. } => Some(hint.clone()),
            Self::Pinned { id } => Some(format!(
                "if you really mean to forget a pinned memory: `cogmem forget --id {} --yes \
                 --force`",
                crate::shell::quote(id)
            )),
            Self::VaultPinned { id } => Some(format!(
                "to let it fade, forget it with `cogmem forget --id {} --force` instead",
                crate::shell::quote(id)
            )),
            Self::SubagentWrite { .. } => {
                Some("hand the memory to the main agent, which decides what is written".into())
            }
            Self::SubagentSecret { .. } => Some(
                "propose it without the credential; if it is not a secret, the user can remember \
                 it with `--allow-secret`"
                    .into(),
            ),
            Self::ProposerMismatch { .. } => Some(
                "leave out `--from` (MCP: `from`): a sub-agent's proposals are always its own"
                    .into(),
            ),
            Self::DuplicateProposal { number } => Some(format!(
                "the main agent will see #{number}; `cogmem pending show {number}` prints it"
            )),
            Self::ProposalClosed { .. } => {
                Some("propose it again with `cogmem propose` if it should be reconsidered".into())
            }
            Self::FlagResolved { .. } => Some(
                "`cogmem flag list --all` shows who resolved it; a new doubt is raised by the \
                 next reflection's FLAG"
                    .into(),
            ),
            Self::ReflectCoreBudget { first, .. } if first.is_empty() => Some(
                "shorten what the reflection writes to MEMORY.md, or give it another TARGET (an \
                 entity, a procedure, `memory/episodes/`) (a pending reflection: reject it, then \
                 submit it again); or raise `[core] budget_tokens` in cogmem.toml, or approve only \
                 some blocks with `--only`"
                    .into(),
            ),
            Self::ReflectCoreBudget { first, .. } => Some(format!(
                "put an ARCHIVE block for each before the blocks that grow MEMORY.md (a pending \
                 reflection: reject it, then submit it again), forget one now with `cogmem \
                 forget --id {}`, or approve only some blocks with `--only`",
                crate::shell::quote(first)
            )),
            Self::CoreBudget { .. } => Some(
                "shorten MEMORY.md (move details into entities with `cogmem remember --entity \
                 TYPE--NAME TEXT`), or keep this in the vault with `cogmem remember --store vault \
                 TEXT`"
                    .into(),
            ),
            Self::ReflectOrder { .. } => {
                Some("`cogmem reflect status` shows what is waiting, and for whom".into())
            }
            Self::SubmissionChanged { commit, rel, reject, .. } => Some(format!(
                "restore what was submitted with `git checkout {commit} -- {rel}` (then `cogmem \
                 sync`, if the edit was committed), or reject it with `{reject}` and submit again"
            )),
            Self::RewardDecided { submitted: false, .. } => Some(
                "the agent goes on with `cogmem reflect input`, then `cogmem reflect submit`; \
                 `cogmem reflect status` shows the cycle"
                    .into(),
            ),
            Self::RewardDecided { submitted: true, .. } => Some(
                "the reflection awaits your approval: `cogmem reflect show`, then `cogmem reflect \
                 approve` or `cogmem reflect reject`"
                    .into(),
            ),
            Self::NotUser { .. } => Some(
                "ask the user to run it at a terminal, or to name themselves on that one \
                 command with `--actor user:NAME`"
                    .into(),
            ),
            Self::ConsolidationNotDue { .. } => {
                Some("approved reflections add entries; `cogmem reflect status` counts them".into())
            }
            Self::ReflectPinned { id, .. } => Some(format!(
                "drop that block, or unpin the memory first with `cogmem unpin {}`",
                crate::shell::quote(id)
            )),
            Self::EntityExists { old, new } => Some(format!(
                "if they are the same, fold one into the other with `cogmem graph merge {} {}`; \
                 otherwise pick another id",
                crate::shell::quote(new),
                crate::shell::quote(old)
            )),
        }
    }
}
