//! `cogmem reflect dialogue`: records the conversation a person and the agent had after a
//! reflection in `memory/meta/reflections/dialogues/YYYY-MM-DD.md` (issue 19), appended, as
//! one commit; the next reflection's input reads it ([`super::logs::dialogue_pieces`]). The
//! text is checked for credentials as `remember` checks it.

use serde::Serialize;

use super::logs::{DIALOGUES_DIR, latest_summary};
use super::{Session, read};
use crate::error::{InputError, RuleError};
use cogmem_store::audit::{Action, Actor, Approval};
use cogmem_store::change::Change;
use cogmem_store::store::reflection::dialogue;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::Clock;

/// What `reflect dialogue` did.
#[derive(Debug, Clone, Serialize)]
pub struct DialogueReport {
    /// The reflection the dialogue follows.
    pub reflection: u32,
    /// The dialogue file.
    pub file: String,
    /// Turns recorded.
    pub turns: usize,
    /// Items extracted to the main reflection.
    pub extracted: usize,
    /// The commit.
    pub commit: String,
}

/// Records a post-reflection dialogue: `text` holds turns on lines starting `User:` or
/// `Agent:` (lines after one continue it) and `Extracted:` lines
/// ([`dialogue::parse`]); `source` names where it came from, for errors. Appended to today's
/// dialogue file under the latest reflection's one-line summary, as one commit. Refused (exit
/// 4) before any reflection is approved; a text that looks like it holds a credential is
/// refused unless `allow_secret`.
pub fn dialogue(
    ws: &Workspace,
    text: &str,
    source: &str,
    actor: &Actor,
    allow_secret: bool,
    clock: &dyn Clock,
) -> crate::Result<DialogueReport> {
    let session = Session::open(ws)?;
    let Some((number, summary)) = latest_summary(ws)? else {
        return Err(RuleError::ReflectOrder {
            command: "cogmem reflect dialogue".into(),
            state: "not approved yet (the reflection log holds none)",
            first: "cogmem reflect approve".into(),
        }
        .into());
    };
    let text = crate::remember::check_text(text)?;
    crate::remember::check_size(ws, &text)?;
    // It becomes reflection input, and stays in the history: no credentials, as for `remember`.
    cogmem_store::secrets::check(&text, "the dialogue", allow_secret)?;
    let parsed = dialogue::parse(&text).map_err(|(line, why)| InputError::Dialogue {
        source_name: source.to_owned(),
        line,
        why,
    })?;
    let now = clock.now();
    let date = now.format("%Y-%m-%d").to_string();
    let file = format!("{DIALOGUES_DIR}/{date}.md");
    let current = ws.read_text_if_exists(&file)?;
    let agent = dialogue::agent_name(&read(ws, layout::IDENTITY_MD)?);
    let mut new = current.clone().unwrap_or_else(|| dialogue::title(&date));
    if !new.ends_with('\n') {
        new.push('\n');
    }
    if current.is_some() {
        new.push_str("\n---\n");
    }
    new.push_str(&dialogue::render(&summary, &agent, &parsed));
    let action = if current.is_some() { Action::Append } else { Action::Create };
    let what = format!("dialogue after reflection #{number}: {} turns", parsed.turns.len());
    let mut change =
        Change::new(actor.clone(), "cogmem reflect dialogue").with_approval(Approval::Auto);
    change.write(&file, new.into_bytes(), action, what);
    let commit = session.commit(ws, change, now)?;
    Ok(DialogueReport {
        reflection: number,
        file,
        turns: parsed.turns.len(),
        extracted: parsed.extracted.len(),
        commit,
    })
}
