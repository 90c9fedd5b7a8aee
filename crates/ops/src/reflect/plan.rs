//! The plan of a reflection's approval, block by block (issue 19): the change each OPERATION
//! block makes to each file, as a unified diff. `reflect submit` shows it, so the person
//! approves what will happen rather than a description; `reflect approve` builds the same plan
//! again from the files as they are then and commits it. Read-only: a plan is a `Change` that
//! is not applied.

use serde::Serialize;

use cogmem_store::change::Change;
use cogmem_store::workspace::Workspace;

/// One file a block changes, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileDiff {
    /// The file, relative to the workspace root.
    pub path: String,
    /// The unified diff (`--- a/PATH`, `+++ b/PATH`, hunks; `/dev/null` for a new file).
    pub diff: String,
}

/// The files of a change as they stood before a block: what [`diffs_since`] compares against.
pub(super) struct Marks(Vec<(String, Option<Vec<u8>>)>);

/// Notes the content every file of `change` has so far.
pub(super) fn mark(change: &Change) -> Marks {
    Marks(change.edits().iter().map(|e| (e.path.clone(), e.content.clone())).collect())
}

/// The files `change` edited since `marks` was taken, each with its diff from what it read then
/// (the earlier block's content, or the file on disk) to what it reads now, in edit order.
pub(super) fn diffs_since(
    ws: &Workspace,
    change: &Change,
    marks: &Marks,
) -> crate::Result<Vec<FileDiff>> {
    let mut out = Vec::new();
    for e in change.edits() {
        let before: Option<String> = match marks.0.iter().find(|(p, _)| *p == e.path) {
            Some((_, c)) if c == &e.content => continue,
            Some((_, c)) => c.as_deref().map(|b| String::from_utf8_lossy(b).into_owned()),
            None => ws.read_text_if_exists(&e.path)?,
        };
        let after = e.content.as_deref().map(|b| String::from_utf8_lossy(b).into_owned());
        if before == after {
            continue;
        }
        let a = format!("a/{}", e.path);
        let b = format!("b/{}", e.path);
        let diff = cogmem_store::git::unified_diff(
            (if before.is_some() { &a } else { "/dev/null" }, before.as_deref().unwrap_or("")),
            (if after.is_some() { &b } else { "/dev/null" }, after.as_deref().unwrap_or("")),
        )?;
        out.push(FileDiff { path: e.path.clone(), diff });
    }
    Ok(out)
}
