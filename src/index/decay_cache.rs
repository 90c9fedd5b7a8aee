//! A sorted copy of the decay inputs, so a search can score its hits without parsing the whole
//! of `decay-scores.json` (2.5 MB at 10,000 memories). One line per entry:
//! `id TAB base TAB weight TAB uses TAB last-use (unix seconds) TAB last-interaction TAB flags`,
//! where flags has `p` for pinned and `f` for forgotten. Derived; rebuilt when the JSON changes.

use std::path::Path;

use chrono::TimeZone;

use crate::Timestamp;
use crate::decay::{DecayInputs, Now};
use crate::store::fsx;
use crate::workspace::Workspace;

/// The cache file's name in the index folder.
pub const FILE: &str = "decay.tsv";

/// Writes the cache from the workspace's decay file.
pub fn write(ws: &Workspace, path: &Path) -> crate::Result<()> {
    let decay = crate::access::load_decay(ws)?;
    let epoch = chrono::Utc.timestamp_opt(0, 0).single().expect("the epoch exists").fixed_offset();
    let mut lines: Vec<String> = Vec::new();
    for key in decay.keys() {
        if key.contains(['\t', '\n']) {
            continue;
        }
        let Some(i) = decay.inputs(&key, epoch) else { continue };
        let flags =
            format!("{}{}", if i.pinned { "p" } else { "" }, if i.forgotten { "f" } else { "" });
        lines.push(format!(
            "{key}\t{}\t{}\t{}\t{}\t{}\t{flags}",
            i.base,
            i.type_weight,
            i.access_count,
            i.last_accessed.timestamp(),
            i.last_interaction
        ));
    }
    lines.sort();
    let mut text = format!("#interactions\t{}\n", decay.interactions());
    for l in lines {
        text.push_str(&l);
        text.push('\n');
    }
    Ok(fsx::write_atomic(path, text.as_bytes())?)
}

/// The loaded cache.
pub struct DecayCache {
    text: String,
    starts: Vec<usize>,
    interactions: u64,
}

impl DecayCache {
    /// Loads the cache; a missing or unreadable cache is empty (every memory scores as new).
    pub fn load(path: &Path) -> Self {
        let text = fsx::read_text_if_exists(path).ok().flatten().unwrap_or_default();
        let mut starts = Vec::new();
        let mut interactions = 0;
        let mut pos = 0;
        for line in text.split_inclusive('\n') {
            if let Some(n) = line.strip_prefix("#interactions\t") {
                interactions = n.trim().parse().unwrap_or(0);
            } else if !line.trim().is_empty() {
                starts.push(pos);
            }
            pos += line.len();
        }
        Self { text, starts, interactions }
    }

    fn line(&self, i: usize) -> &str {
        let s = self.starts[i];
        let e = self.text[s..].find('\n').map_or(self.text.len(), |n| s + n);
        &self.text[s..e]
    }

    /// Returns "now" for scoring.
    pub fn now(&self, time: Timestamp) -> Now {
        Now { time, interactions: self.interactions }
    }

    /// Looks up an entry's inputs.
    pub fn get(&self, id: &str) -> Option<DecayInputs> {
        let (mut lo, mut hi) = (0, self.starts.len());
        let mut found = None;
        while lo < hi {
            let mid = (lo + hi) / 2;
            let key = self.line(mid).split('\t').next().unwrap_or("");
            match key.cmp(id) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    found = Some(mid);
                    break;
                }
            }
        }
        let i = found?;
        let f: Vec<&str> = self.line(i).split('\t').collect();
        let num = |k: usize| f.get(k).and_then(|x| x.parse::<f64>().ok());
        let last = chrono::Utc.timestamp_opt(f.get(4)?.parse().ok()?, 0).single()?.fixed_offset();
        let flags = f.get(6).copied().unwrap_or("");
        Some(DecayInputs {
            base: num(1)?,
            type_weight: num(2)?,
            access_count: f.get(3)?.parse().ok()?,
            last_accessed: last,
            last_interaction: f.get(5)?.parse().ok()?,
            pinned: flags.contains('p'),
            forgotten: flags.contains('f'),
        })
    }
}
