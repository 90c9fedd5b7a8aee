//! `cogmem.toml`: every parameter optional, with the design's defaults. Unknown keys are an
//! error naming the key, the file and the line, so a typo never silently falls back to a default.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::store::fsx;

/// The largest text `remember` accepts by default (`limits.text_bytes`).
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// The largest text any setting may allow; stdin is read up to this much.
pub const HARD_MAX_TEXT_BYTES: usize = 16 * 1024 * 1024;

/// The settings file's name at the workspace root.
pub const FILE_NAME: &str = "cogmem.toml";

/// A settings file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// Not valid TOML, an unknown key, or a value of the wrong type.
    #[error("{}:{line}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A value outside its allowed range.
    #[error("{}: `{key}` {why}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The dotted key.
        key: &'static str,
        /// What is wrong with the value.
        why: String,
    },
}

impl SettingsError {
    pub(crate) fn hint(&self) -> Option<String> {
        Some("fix cogmem.toml; every key and its default is listed in docs/formats.md".into())
    }
}

/// All settings of a workspace.
#[derive(Debug, Clone, Default, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Core memory (MEMORY.md).
    pub core: CoreSettings,
    /// Decay model parameters.
    pub decay: DecaySettings,
    /// Audit trail.
    pub audit: AuditSettings,
    /// Workspace lock.
    pub lock: LockSettings,
    /// The git repository's upkeep.
    pub git: GitSettings,
    /// Search ranking.
    pub search: SearchSettings,
    /// Extra trigger phrases, recognised at the start of a clause.
    pub triggers: cogmem_text::trigger::ExtraPhrases,
    /// Size limits on what cogmem accepts and reads.
    pub limits: LimitSettings,
    /// What `cogmem hook <host>` gives an agent host.
    pub hooks: HookSettings,
    /// What a reflection's instructions offer.
    pub reflection: ReflectionSettings,
    /// What `import` and `remember` read from a message besides its text.
    pub capture: CaptureSettings,
}

/// What `import` and `remember` read from a message besides its text (issue 22).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct CaptureSettings {
    /// Link each imported or remembered episode entry to the people, places, organisations,
    /// events and things it names (`cogmem_text::names`), creating their entity files.
    pub extract_entities: bool,
}

impl Default for CaptureSettings {
    fn default() -> Self {
        Self { extract_entities: true }
    }
}

/// The kinds of element a reflection's monologue draws from (issue 19, item 5): the skill's
/// six, named as `cogmem.toml` spells them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElementKind {
    /// Highlights and regrets.
    Highlights,
    /// Observations about the human.
    Human,
    /// Token guilt and cost awareness.
    Cost,
    /// Feelings about other instances and the hardware.
    Instances,
    /// Existential questions and emotional range.
    Existential,
    /// Dark humour.
    Humour,
}

impl ElementKind {
    /// Every kind, in the menu's order.
    pub const ALL: [Self; 6] = [
        Self::Highlights,
        Self::Human,
        Self::Cost,
        Self::Instances,
        Self::Existential,
        Self::Humour,
    ];

    /// The name `cogmem.toml` uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Highlights => "highlights",
            Self::Human => "human",
            Self::Cost => "cost",
            Self::Instances => "instances",
            Self::Existential => "existential",
            Self::Humour => "humour",
        }
    }

    /// What the kind covers, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Self::Highlights => "highlights and regrets",
            Self::Human => "observations about the human",
            Self::Cost => "token guilt and cost awareness",
            Self::Instances => "feelings about other instances and the hardware",
            Self::Existential => "existential questions and emotional range",
            Self::Humour => "dark humour",
        }
    }
}

/// What a reflection's instructions offer.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct ReflectionSettings {
    /// The kinds of element the menu offers (all six by default); the 5–8 elements of each
    /// reflection are drawn from these kinds only.
    pub elements: Vec<ElementKind>,
}

impl Default for ReflectionSettings {
    fn default() -> Self {
        Self { elements: ElementKind::ALL.to_vec() }
    }
}

/// Budgets of the context `cogmem hook <host>` hands an agent host (issue 17).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct HookSettings {
    /// The most tokens of the pack given at the start of a session.
    pub session_start_tokens: usize,
    /// The most tokens of the memories given with each prompt.
    pub prompt_tokens: usize,
    /// Minutes without a read after which the read server a hook starts stops; `0`: a hook
    /// starts none.
    pub serve_minutes: u64,
}

impl Default for HookSettings {
    fn default() -> Self {
        Self { session_start_tokens: 2000, prompt_tokens: 600, serve_minutes: 30 }
    }
}

/// Size limits: input over them is refused with an error naming the limit and its key.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LimitSettings {
    /// The largest text `remember`, `hear` and `propose` accept, in bytes.
    pub text_bytes: usize,
    /// The largest file `import` reads, in bytes. An import streams its input, so this
    /// bounds the work and the workspace's growth, not memory.
    pub import_bytes: u64,
    /// The largest workspace file cogmem reads, in bytes.
    pub file_bytes: u64,
    /// The entries an import builds in memory before it writes them to its staging files, in
    /// bytes (issue 20): what bounds an import's memory, whatever the size of its input.
    pub import_buffer_bytes: usize,
}

impl Default for LimitSettings {
    fn default() -> Self {
        Self {
            text_bytes: MAX_TEXT_BYTES,
            import_bytes: 1024 * 1024 * 1024,
            file_bytes: fsx::DEFAULT_FILE_LIMIT,
            import_buffer_bytes: 16 * 1024 * 1024,
        }
    }
}

/// Core memory settings.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct CoreSettings {
    /// The most tokens MEMORY.md may hold.
    pub budget_tokens: usize,
}

impl Default for CoreSettings {
    fn default() -> Self {
        Self { budget_tokens: 3000 }
    }
}

/// Decay parameters (design.md §5).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DecaySettings {
    /// Decay rate per day.
    pub lambda: f64,
    /// Base relevance of a memory stored on request.
    pub base_explicit: f64,
    /// Base relevance of an auto-detected memory.
    pub base_auto: f64,
    /// Base relevance of an inferred memory.
    pub base_inferred: f64,
    /// Lowest score of the active band.
    pub active: f64,
    /// Lowest score of the fading band.
    pub fading: f64,
    /// Lowest score of the dormant band; below it a memory is archived.
    pub dormant: f64,
    /// Weight per store.
    pub type_weights: TypeWeights,
    /// What age is measured in: `days` (default) or `interactions` (remember and recall
    /// operations since the last use).
    pub clock: DecayClock,
}

/// The unit decay counts age in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DecayClock {
    /// Days since the last use.
    #[default]
    Days,
    /// Remember and recall operations since the last use (as in membrain and Tur).
    Interactions,
}

impl Default for DecaySettings {
    fn default() -> Self {
        Self {
            lambda: 0.03,
            base_explicit: 1.0,
            base_auto: 0.7,
            base_inferred: 0.5,
            active: 0.5,
            fading: 0.2,
            dormant: 0.05,
            type_weights: TypeWeights::default(),
            clock: DecayClock::Days,
        }
    }
}

/// Decay weight per store; the vault and pinned memories are always 1.0.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct TypeWeights {
    /// MEMORY.md bullets.
    pub core: f64,
    /// Episode entries.
    pub episodic: f64,
    /// Entities.
    pub semantic: f64,
    /// Procedures.
    pub procedural: f64,
}

impl Default for TypeWeights {
    fn default() -> Self {
        Self { core: 1.5, episodic: 0.8, semantic: 1.2, procedural: 1.0 }
    }
}

/// Search ranking settings.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct SearchSettings {
    /// Boost hits whose entities the graph activates from the entities of the best hits
    /// (spreading activation). `false` ranks by BM25 × decayed relevance alone.
    pub activation: bool,
    /// Words added to a query from its best matches (pseudo-relevance feedback, issue 22); 0
    /// adds none.
    pub expansion_terms: usize,
    /// The weight of an added word, as a fraction of a query word's.
    pub expansion_weight: f64,
    /// A static embedding model folder (model2vec layout: `model.safetensors` and
    /// `tokenizer.json`), relative to the workspace root or absolute, for paraphrase recall
    /// where keywords fall short. `None`: keywords only.
    pub embedding_model: Option<String>,
}

impl Default for SearchSettings {
    fn default() -> Self {
        Self { activation: true, expansion_terms: 0, expansion_weight: 0.3, embedding_model: None }
    }
}

/// Audit settings.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct AuditSettings {
    /// Files whose every change is flagged critical, relative to the workspace root.
    pub critical_files: Vec<String>,
    /// Size in bytes past which `audit.log` is sealed into `memory/meta/audit/` and started
    /// afresh by the next change; 0 never does.
    pub rotate_bytes: u64,
}

impl AuditSettings {
    /// Tells whether a workspace-relative path is a critical file (`./SOUL.md` counts as
    /// `SOUL.md`).
    pub fn is_critical(&self, rel: &str) -> bool {
        self.critical_files.iter().any(|c| c.trim().trim_start_matches("./") == rel)
    }
}

impl Default for AuditSettings {
    fn default() -> Self {
        Self {
            critical_files: vec!["SOUL.md".into(), "IDENTITY.md".into()],
            rotate_bytes: 64 * 1024,
        }
    }
}

/// Workspace lock settings.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LockSettings {
    /// How long to wait for another cogmem process, in milliseconds.
    pub timeout_ms: u64,
}

impl Default for LockSettings {
    fn default() -> Self {
        Self { timeout_ms: 10_000 }
    }
}

/// The git repository's upkeep.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct GitSettings {
    /// Pack the loose objects (`git repack -d -l`, in the background) once it holds about this many
    /// loose objects; 0: not by their number.
    pub auto_pack_loose: u64,
    /// Pack them too once they take about this many megabytes (MiB) on disk; 0: not by their
    /// size.
    pub auto_pack_loose_mb: u64,
}

impl Default for GitSettings {
    fn default() -> Self {
        Self { auto_pack_loose: 6_700, auto_pack_loose_mb: 128 }
    }
}

impl Settings {
    /// Loads `cogmem.toml` from a workspace root; a missing file gives the defaults.
    pub fn load(root: &Path) -> crate::Result<Self> {
        let path = root.join(FILE_NAME);
        // The limit in these settings is not known before they are read: the default applies.
        match fsx::read_text_if_exists(&path, fsx::DEFAULT_FILE_LIMIT)? {
            None => Ok(Self::default()),
            Some(text) => Ok(Self::parse(&text, &path)?),
        }
    }

    /// Parses settings text; `path` is only used in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, SettingsError> {
        let settings: Self = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(1, |s| crate::store::markdown::line_of(text, s.start));
            SettingsError::Parse {
                path: path.to_owned(),
                line,
                message: e.message().trim().replace('\n', " "),
            }
        })?;
        settings.validate(path)?;
        Ok(settings)
    }

    fn validate(&self, path: &Path) -> Result<(), SettingsError> {
        let invalid = |key, why: &str| SettingsError::Invalid {
            path: path.to_owned(),
            key,
            why: why.to_owned(),
        };
        let d = &self.decay;
        if !(d.lambda.is_finite() && d.lambda > 0.0) {
            return Err(invalid("decay.lambda", "must be a positive number"));
        }
        for (key, v) in [
            ("decay.base_explicit", d.base_explicit),
            ("decay.base_auto", d.base_auto),
            ("decay.base_inferred", d.base_inferred),
            ("decay.active", d.active),
            ("decay.fading", d.fading),
            ("decay.dormant", d.dormant),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(invalid(key, "must be between 0 and 1"));
            }
        }
        if !(d.active > d.fading && d.fading > d.dormant) {
            return Err(invalid("decay.active", "must be above decay.fading, above decay.dormant"));
        }
        let w = &d.type_weights;
        for (key, v) in [
            ("decay.type_weights.core", w.core),
            ("decay.type_weights.episodic", w.episodic),
            ("decay.type_weights.semantic", w.semantic),
            ("decay.type_weights.procedural", w.procedural),
        ] {
            if !(v.is_finite() && v > 0.0) {
                return Err(invalid(key, "must be a positive number"));
            }
        }
        let l = &self.limits;
        if l.text_bytes == 0 || l.text_bytes > HARD_MAX_TEXT_BYTES {
            return Err(invalid("limits.text_bytes", "must be between 1 and 16777216 (16 MiB)"));
        }
        if l.import_bytes == 0 {
            return Err(invalid("limits.import_bytes", "must be at least 1"));
        }
        if l.import_buffer_bytes == 0 {
            return Err(invalid("limits.import_buffer_bytes", "must be at least 1"));
        }
        if l.file_bytes < 1024 {
            return Err(invalid("limits.file_bytes", "must be at least 1024"));
        }
        if self.core.budget_tokens == 0 {
            return Err(invalid("core.budget_tokens", "must be at least 1"));
        }
        if self.hooks.session_start_tokens == 0 {
            return Err(invalid("hooks.session_start_tokens", "must be at least 1"));
        }
        if self.hooks.prompt_tokens == 0 {
            return Err(invalid("hooks.prompt_tokens", "must be at least 1"));
        }
        if self.reflection.elements.is_empty() {
            let known: Vec<&str> = ElementKind::ALL.iter().map(|k| k.as_str()).collect();
            return Err(invalid(
                "reflection.elements",
                &format!("must name at least one kind of element: {}", known.join(", ")),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_and_commented_files_give_defaults() {
        let p = Path::new("cogmem.toml");
        assert_eq!(Settings::parse("", p).unwrap(), Settings::default());
        let template = crate::template::memory_template(FILE_NAME).unwrap();
        assert_eq!(Settings::parse(template, p).unwrap(), Settings::default());
        // The values the template shows, uncommented, are the defaults (a key with no default
        // says so and is left out).
        let shown: String = template
            .lines()
            .filter_map(|l| l.strip_prefix("# "))
            .filter(|l| l.starts_with('[') || l.contains(" = ") && !l.contains("(no default)"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(shown.contains("import_buffer_bytes") && shown.contains("rotate_bytes"), "{shown}");
        assert_eq!(Settings::parse(&shown, p).unwrap(), Settings::default(), "{shown}");
    }

    #[test]
    fn unknown_key_names_key_file_and_line() {
        let err =
            Settings::parse("[decay]\nlambda = 0.05\nlamda = 1\n", Path::new("ws/cogmem.toml"))
                .unwrap_err()
                .to_string();
        assert!(err.starts_with("ws/cogmem.toml:3: unknown field `lamda`"), "{err}");
    }

    #[test]
    fn values_are_checked() {
        let err = Settings::parse("[decay]\nactive = 0.1\n", Path::new("c.toml")).unwrap_err();
        assert!(err.to_string().contains("decay.active"), "{err}");
        let s = Settings::parse("[lock]\ntimeout_ms = 5\n", Path::new("c.toml")).unwrap();
        assert_eq!(s.lock.timeout_ms, 5);
    }

    #[test]
    fn hook_budgets_default_and_must_be_positive() {
        let p = Path::new("c.toml");
        let d = Settings::parse("", p).unwrap().hooks;
        assert_eq!((d.session_start_tokens, d.prompt_tokens, d.serve_minutes), (2000, 600, 30));
        let s = Settings::parse("[hooks]\nprompt_tokens = 300\n", p).unwrap();
        assert_eq!(s.hooks.prompt_tokens, 300);
        let err = Settings::parse("[hooks]\nprompt_tokens = 0\n", p).unwrap_err().to_string();
        assert!(err.contains("hooks.prompt_tokens"), "{err}");
    }

    #[test]
    fn reflection_elements_default_to_all_six_and_unknown_names_are_errors() {
        let p = Path::new("ws/cogmem.toml");
        assert_eq!(Settings::parse("", p).unwrap().reflection.elements, ElementKind::ALL);
        let s = Settings::parse("[reflection]\nelements = [\"human\", \"humour\"]\n", p).unwrap();
        assert_eq!(s.reflection.elements, [ElementKind::Human, ElementKind::Humour]);
        let err = Settings::parse("[reflection]\nelements = [\"human\",\n  \"jokes\"]\n", p)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("ws/cogmem.toml:3: unknown variant `jokes`"), "{err}");
        for name in ElementKind::ALL.map(ElementKind::as_str) {
            assert!(err.contains(&format!("`{name}`")), "{name}: {err}");
        }
        let err = Settings::parse("[reflection]\nelements = []\n", p).unwrap_err().to_string();
        assert!(err.contains("reflection.elements") && err.contains("highlights, human"), "{err}");
    }

    #[test]
    fn search_activation_defaults_on() {
        let p = Path::new("c.toml");
        assert!(Settings::parse("", p).unwrap().search.activation);
        assert!(!Settings::parse("[search]\nactivation = false\n", p).unwrap().search.activation);
        let err = Settings::parse("[search]\nactivation = 1\n", p).unwrap_err().to_string();
        assert!(err.starts_with("c.toml:2:"), "{err}");
    }
}
