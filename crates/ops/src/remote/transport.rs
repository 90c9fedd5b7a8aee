//! Talking to the remote: fetching its branch and pushing ours, never prompting.
//!
//! Remotes on this machine (a path or `file://`) go through libgit2. cogmem's libgit2 is built
//! without network transports, so https and ssh remotes go through the `git` program instead,
//! which uses the user's credential helpers and ssh-agent; prompts are switched off
//! (`GIT_TERMINAL_PROMPT=0`, ssh `BatchMode`), so a missing credential fails with git's message
//! instead of waiting for a person who is not there.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use git2::{FetchOptions, Oid, PushOptions, RemoteCallbacks, Repository};

use super::RemoteError;
use cogmem_store::git::GitError;

/// Where a remote lives and how to reach it.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint {
    /// The remote's name.
    pub name: String,
    /// Its URL as configured.
    pub url: String,
    /// A local folder, when it is one (resolved against the workspace root).
    pub local: Option<PathBuf>,
}

/// Looks up a configured remote.
pub(crate) fn endpoint(repo: &Repository, root: &Path, name: &str) -> crate::Result<Endpoint> {
    let Ok(remote) = repo.find_remote(name) else {
        let known = repo
            .remotes()
            .map(|list| list.iter().flatten().flatten().map(str::to_owned).collect())
            .unwrap_or_default();
        return Err(RemoteError::Unknown { name: name.to_owned(), known }.into());
    };
    let url = remote.url().ok().unwrap_or("").to_owned();
    if url.is_empty() {
        return Err(RemoteError::NoUrl { name: name.to_owned() }.into());
    }
    Ok(Endpoint { name: name.to_owned(), local: local_path(root, &url), url })
}

/// The folder a URL names when it is on this machine: `file://…` or a path (not `host:path`).
pub(crate) fn local_path(root: &Path, url: &str) -> Option<PathBuf> {
    if let Some(p) = url.strip_prefix("file://") {
        return Some(PathBuf::from(p));
    }
    if url.contains("://") {
        return None;
    }
    // scp-like `host:path` (a colon before the first slash) is ssh.
    if let Some(colon) = url.find(':')
        && url.find('/').is_none_or(|slash| colon < slash)
    {
        return None;
    }
    let p = PathBuf::from(url);
    Some(if p.is_absolute() { p } else { root.join(p) })
}

/// The remote-tracking reference for `branch`.
pub(crate) fn tracking_ref(name: &str, branch: &str) -> String {
    format!("refs/remotes/{name}/{branch}")
}

/// Fetches the remote's `branch` into its tracking reference, and the refs `also` names
/// (refspecs, in the same round trip), and returns the fetched tip, or `None` when the remote
/// has no such branch (an empty remote, say; then nothing else is fetched either).
pub(crate) fn fetch(
    repo: &Repository,
    root: &Path,
    ep: &Endpoint,
    branch: &str,
    also: &[&str],
) -> crate::Result<Option<Oid>> {
    let tracking = tracking_ref(&ep.name, branch);
    // A stale tracking ref would pass for the remote's branch if the branch is gone.
    if let Ok(mut r) = repo.find_reference(&tracking) {
        let _ = r.delete();
    }
    let refspec = format!("+refs/heads/{branch}:{tracking}");
    let refspecs: Vec<&str> =
        std::iter::once(refspec.as_str()).chain(also.iter().copied()).collect();
    match &ep.local {
        Some(dir) => {
            if !dir.exists() {
                return Err(RemoteError::Unreachable {
                    name: ep.name.clone(),
                    url: ep.url.clone(),
                    why: "the folder does not exist".into(),
                }
                .into());
            }
            let mut remote = repo
                .remote_anonymous(&dir.to_string_lossy())
                .map_err(|cause| GitError::Op { what: "open the remote", cause })?;
            let mut opts = FetchOptions::new();
            opts.download_tags(git2::AutotagOption::None);
            remote.fetch(&refspecs, Some(&mut opts), None).map_err(|e| {
                RemoteError::Unreachable {
                    name: ep.name.clone(),
                    url: ep.url.clone(),
                    why: e.message().to_owned(),
                }
            })?;
            // An anonymous remote writes FETCH_HEAD only; record the tip ourselves.
            let heads = remote
                .list()
                .map_err(|cause| GitError::Op { what: "list the remote's branches", cause })?;
            let want = format!("refs/heads/{branch}");
            let tip = heads.iter().find(|h| h.name() == want).map(git2::RemoteHead::oid);
            if let Some(id) = tip {
                repo.reference(&tracking, id, true, "cogmem sync: fetch")
                    .map_err(|cause| GitError::Op { what: "record the fetched branch", cause })?;
            }
            Ok(tip)
        }
        None => {
            // An empty remote (or one without the branch) is not an error: there is nothing to
            // fetch, and the push creates the branch.
            let want = format!("refs/heads/{branch}");
            let heads = run_git(repo, root, ep, &["ls-remote", "--heads", &ep.name, &want])?;
            if !heads.lines().any(|l| l.split_whitespace().nth(1) == Some(want.as_str())) {
                return Ok(None);
            }
            let args = ["fetch", "--no-tags", "--quiet", ep.name.as_str()];
            let args: Vec<&str> = args.into_iter().chain(refspecs).collect();
            run_git(repo, root, ep, &args)?;
            Ok(repo.find_reference(&tracking).ok().and_then(|r| r.target()))
        }
    }
}

/// Pushes our branch `local` to the remote's `branch` (with `force`, over a history it does
/// not descend from). Returns `Err` with the remote's reason when it refused (the remote moved
/// on since the fetch, say).
pub(crate) fn push(
    repo: &Repository,
    root: &Path,
    ep: &Endpoint,
    (local, branch): (&str, &str),
    tip: Oid,
    force: bool,
) -> crate::Result<Result<(), String>> {
    let plus = if force { "+" } else { "" };
    let refspec = format!("{plus}refs/heads/{local}:refs/heads/{branch}");
    let outcome = push_refs(repo, root, ep, &[refspec])?;
    if outcome.is_ok() {
        let _ = repo.reference(&tracking_ref(&ep.name, branch), tip, true, "cogmem sync: push");
    }
    Ok(outcome)
}

/// Pushes `refspecs` to the remote in one go. Returns `Err` with the remote's reason when it
/// refused one.
pub(crate) fn push_refs(
    repo: &Repository,
    root: &Path,
    ep: &Endpoint,
    refspecs: &[String],
) -> crate::Result<Result<(), String>> {
    Ok(match &ep.local {
        Some(dir) => {
            let mut remote = repo
                .remote_anonymous(&dir.to_string_lossy())
                .map_err(|cause| GitError::Op { what: "open the remote", cause })?;
            let mut refused: Option<String> = None;
            let result = {
                let mut cb = RemoteCallbacks::new();
                cb.push_update_reference(|_, status| {
                    if let Some(s) = status {
                        refused = Some(s.to_owned());
                    }
                    Ok(())
                });
                let mut opts = PushOptions::new();
                opts.remote_callbacks(cb);
                remote.push(refspecs, Some(&mut opts))
            };
            match (result, refused) {
                (Err(e), _) => Err(e.message().to_owned()),
                (Ok(()), Some(why)) => Err(why),
                (Ok(()), None) => Ok(()),
            }
        }
        None => {
            let args = ["push", "--quiet", ep.name.as_str()];
            let args: Vec<&str> =
                args.into_iter().chain(refspecs.iter().map(String::as_str)).collect();
            match run_git(repo, root, ep, &args) {
                Ok(_) => Ok(()),
                Err(crate::Error::Remote(RemoteError::Git { stderr, .. })) => Err(stderr),
                Err(e) => return Err(e),
            }
        }
    })
}

/// Runs `git` in the workspace without a terminal to prompt on, and returns what it printed.
fn run_git(repo: &Repository, root: &Path, ep: &Endpoint, args: &[&str]) -> crate::Result<String> {
    // Keep the user's ssh command, but never let ssh ask for a password or a host key.
    let ssh = repo
        .config()
        .ok()
        .and_then(|c| c.get_string("core.sshCommand").ok())
        .unwrap_or_else(|| "ssh".to_owned());
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .arg("-c")
        .arg(format!("core.sshCommand={ssh} -o BatchMode=yes"))
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GCM_INTERACTIVE", "never")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| RemoteError::NoGit { url: ep.url.clone(), why: e.to_string() })?;
    if out.status.success() {
        return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stderr = stderr.lines().filter(|l| !l.trim().is_empty()).collect::<Vec<_>>().join("; ");
    Err(RemoteError::Git { name: ep.name.clone(), url: ep.url.clone(), stderr }.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_urls_are_told_from_network_ones() {
        let root = Path::new("/ws");
        let cases = [
            ("/srv/mem.git", Some("/srv/mem.git")),
            ("../mem.git", Some("/ws/../mem.git")),
            ("file:///srv/mem.git", Some("/srv/mem.git")),
            ("https://example.com/mem.git", None),
            ("ssh://git@example.com/mem.git", None),
            ("git@example.com:mem.git", None),
            ("host:path/mem.git", None),
        ];
        for (url, want) in cases {
            assert_eq!(local_path(root, url), want.map(PathBuf::from), "input: {url:?}");
        }
    }
}
