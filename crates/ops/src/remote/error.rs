//! Why a sync with a remote could not run: [`RemoteError`], with its kind and hint.

use crate::error::ErrorKind;

/// Why a sync with a remote could not run.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// No remote has this name.
    #[error("there is no git remote called {name:?}{}", known_list(known))]
    Unknown {
        /// The name given.
        name: String,
        /// The remotes that exist.
        known: Vec<String>,
    },
    /// The remote has no URL.
    #[error("the git remote {name:?} has no URL")]
    NoUrl {
        /// The remote.
        name: String,
    },
    /// A local remote that cannot be read.
    #[error("cannot fetch from {name} ({url}): {why}")]
    Unreachable {
        /// The remote.
        name: String,
        /// Its URL.
        url: String,
        /// What went wrong.
        why: String,
    },
    /// A network remote, and no `git` program to reach it with.
    #[error("{url} is a network remote, which cogmem reaches through the `git` program: {why}")]
    NoGit {
        /// The remote's URL.
        url: String,
        /// Why `git` could not run.
        why: String,
    },
    /// `git fetch` or `git push` failed.
    #[error("git could not reach {name} ({url}): {stderr}")]
    Git {
        /// The remote.
        name: String,
        /// Its URL.
        url: String,
        /// git's own message.
        stderr: String,
    },
    /// Uncommitted edits in the working tree.
    #[error("the working tree has uncommitted edits: {}", paths.join(", "))]
    HandEdits {
        /// The edited files.
        paths: Vec<String>,
        /// The remote asked for.
        name: String,
    },
    /// The branch has no commit yet.
    #[error("the workspace has no commits yet, so there is nothing to sync")]
    Unborn,
    /// The remote's history holds text this workspace purged.
    #[error(
        "{name}/{branch} still holds purged text (commit {commit}); merging it would bring the \
         text back, so nothing was changed"
    )]
    RemoteHoldsPurged {
        /// The remote.
        name: String,
        /// Its branch.
        branch: String,
        /// A commit of it that holds purged text.
        commit: String,
    },
    /// The remote's history commits symbolic links (or submodules), which cogmem never takes.
    #[error(
        "{name}/{branch} commits {} that cogmem never takes from another machine: {}; \
         nothing was changed",
        if paths.len() == 1 { "a symbolic link" } else { "symbolic links" },
        paths.join(", ")
    )]
    PeerLinks {
        /// The remote.
        name: String,
        /// Its branch.
        branch: String,
        /// The links, relative to the workspace root.
        paths: Vec<String>,
    },
    /// The remote's history changed or removed lines of the audit log, which is append-only.
    #[error(
        "{path}:{line}: {name}/{branch} changed or removed this line of the audit log{}, which is \
         append-only, so nothing was changed: {text}",
        if *count == 1 { String::new() } else { format!(" and {} more", count - 1) }
    )]
    PeerAuditRewritten {
        /// The remote.
        name: String,
        /// Its branch.
        branch: String,
        /// The common ancestor's file that held the first lost line.
        path: String,
        /// Its 1-based line there.
        line: usize,
        /// Its text.
        text: String,
        /// How many lines were lost.
        count: usize,
    },
    /// Our history holds text that was purged (on another machine, or here before a reset).
    #[error(
        "this workspace's history holds text that was purged (commit {commit}, see \
         memory/meta/purged); syncing would spread it again, so nothing was changed"
    )]
    LocalHoldsPurged {
        /// The remote.
        name: String,
        /// A commit of ours that holds purged text.
        commit: String,
    },
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        " (this workspace has no remotes)".into()
    } else {
        format!(" (remotes: {})", known.join(", "))
    }
}

impl RemoteError {
    pub(crate) fn kind(&self) -> ErrorKind {
        match self {
            Self::HandEdits { .. }
            | Self::PeerLinks { .. }
            | Self::PeerAuditRewritten { .. }
            | Self::RemoteHoldsPurged { .. }
            | Self::LocalHoldsPurged { .. } => ErrorKind::Conflict,
            _ => ErrorKind::User,
        }
    }

    pub(crate) fn hint(&self) -> Option<String> {
        Some(match self {
            Self::Unknown { .. } | Self::NoUrl { .. } => {
                "add the remote with `git remote add NAME URL` (any git URL or a folder)".into()
            }
            Self::Unreachable { .. } => {
                "check the remote's URL with `git remote -v`; a folder remote must be a git \
                 repository (`git init --bare PATH` makes one)"
                    .into()
            }
            Self::NoGit { .. } => "install git, or sync through a folder remote".into(),
            Self::Git { name, .. } => format!(
                "check that `git fetch {name}` works in a terminal; cogmem never prompts, so \
                 credentials must come from a credential helper or ssh-agent"
            ),
            Self::HandEdits { name, .. } => format!(
                "run `cogmem sync` first to commit them, then `cogmem sync --remote {}`",
                cogmem_text::shell::quote(name)
            ),
            Self::Unborn => "run `cogmem init` to start the workspace's history".into(),
            Self::PeerAuditRewritten { name, branch, path, .. } => format!(
                "`git log -p {name}/{branch} -- {path}` shows which commit changed it; on the \
                 machine that made it, put the lines back as they were (`git revert COMMIT`) and \
                 push, then run `cogmem sync --remote {}` again",
                cogmem_text::shell::quote(name)
            ),
            Self::PeerLinks { name, paths, .. } => format!(
                "on the machine that committed {}, replace {} with the file it points to (or \
                 remove it: `git rm {}`), commit and push; then run `cogmem sync --remote {}` \
                 again",
                if paths.len() == 1 { "it" } else { "them" },
                if paths.len() == 1 { "the link" } else { "each link" },
                paths.iter().map(|p| cogmem_text::shell::quote(p)).collect::<Vec<_>>().join(" "),
                cogmem_text::shell::quote(name)
            ),
            Self::RemoteHoldsPurged { name, .. } => format!(
                "the remote must be force-pushed: `cogmem sync --remote {name} --force-rewritten` \
                 replaces its history with ours (its commits that we lack are dropped from it); \
                 every other clone then runs the same command to take the rewritten history"
            ),
            Self::LocalHoldsPurged { name, .. } => format!(
                "`cogmem sync --remote {name} --force-rewritten` takes the remote's rewritten \
                 history in place of ours (our old tip is kept under refs/cogmem/pre-purge/ until \
                 you erase it); or purge the text here with `cogmem forget --purge-text`"
            ),
        })
    }
}
