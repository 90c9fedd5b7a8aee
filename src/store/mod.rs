//! The canonical stores: the Markdown and JSON files of a workspace, read and rendered.
//!
//! Modules here turn a request into new file content; they never write to disk themselves
//! (that is [`crate::change`]'s job, so that every write is part of one all-or-nothing change)
//! and never depend on derived data such as an index or a graph cache.

use std::path::PathBuf;

pub mod core_memory;
pub mod decay_file;
pub mod entity;
pub mod episode;
pub mod fsx;
pub mod markdown;
pub mod pending;
pub mod procedure;
pub mod reflection;
pub mod units;
pub mod vault;

/// A workspace file that cannot be read as its format requires.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The file is not UTF-8 text.
    #[error("{}: not valid UTF-8 at byte {offset}", path.display())]
    NotUtf8 {
        /// The file.
        path: PathBuf,
        /// The 0-based byte offset of the first invalid byte.
        offset: usize,
    },
    /// The file breaks its format at a line.
    #[error("{}:{line}: {what}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        what: String,
    },
}

impl StoreError {
    pub(crate) fn hint(&self) -> Option<String> {
        match self {
            Self::NotUtf8 { .. } => {
                Some("re-save the file as UTF-8, or restore it with `git checkout -- FILE`".into())
            }
            Self::Malformed { .. } => Some(
                "fix the line by hand (see docs/formats.md), or restore the file with \
                 `git checkout -- FILE`"
                    .into(),
            ),
        }
    }
}

/// The five stores a memory can go to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Store {
    /// MEMORY.md, always in the agent's context.
    Core,
    /// Daily episode logs.
    Episodic,
    /// Entity files of the knowledge graph.
    Semantic,
    /// Procedures.
    Procedural,
    /// Pinned notes that never decay.
    Vault,
}

impl Store {
    /// Every store, in the order they are written.
    pub const ALL: [Self; 5] =
        [Self::Core, Self::Episodic, Self::Semantic, Self::Procedural, Self::Vault];

    /// Returns the store's name as written in files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Core => "core",
            Self::Episodic => "episodic",
            Self::Semantic => "semantic",
            Self::Procedural => "procedural",
            Self::Vault => "vault",
        }
    }

    /// Parses a store name.
    pub fn parse(text: &str) -> crate::Result<Self> {
        Self::ALL.into_iter().find(|s| s.as_str().eq_ignore_ascii_case(text.trim())).ok_or_else(
            || {
                crate::error::InputError::Unknown {
                    what: "store",
                    value: text.to_owned(),
                    expected: "core, episodic, semantic, procedural, vault".into(),
                }
                .into()
            },
        )
    }
}

impl std::fmt::Display for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How sure the memory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Stated by the user.
    High,
    /// Mentioned in passing.
    Medium,
    /// Inferred.
    Low,
}

impl Confidence {
    /// Returns the word used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::High => "high",
            Self::Medium => "medium",
            Self::Low => "low",
        }
    }

    /// Parses `high`, `medium` or `low`.
    pub fn parse(text: &str) -> crate::Result<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "high" => Ok(Self::High),
            "medium" => Ok(Self::Medium),
            "low" => Ok(Self::Low),
            other => Err(crate::error::InputError::Unknown {
                what: "confidence",
                value: other.to_owned(),
                expected: "high, medium, low".into(),
            }
            .into()),
        }
    }
}
