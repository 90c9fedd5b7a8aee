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

/// The loaded cache, searched in place: loading is one read, a lookup a binary search over the
/// sorted lines (no per-line work for the entries a search does not rank).
pub struct DecayCache {
    text: String,
    /// Where the sorted entry lines start.
    body: usize,
    interactions: u64,
}

impl DecayCache {
    /// Loads the cache; a missing or unreadable cache is empty (every memory scores as new).
    pub fn load(path: &Path) -> Self {
        Self::from_text(fsx::read_text_if_exists(path).ok().flatten().unwrap_or_default())
    }

    fn from_text(text: String) -> Self {
        let mut body = 0;
        let mut interactions = 0;
        if let Some(rest) = text.strip_prefix("#interactions\t") {
            let end = rest.find('\n').unwrap_or(rest.len());
            interactions = rest[..end].trim().parse().unwrap_or(0);
            body = (text.len() - rest.len() + end + 1).min(text.len());
        }
        Self { text, body, interactions }
    }

    /// The entry line for an id.
    fn find(&self, id: &str) -> Option<&str> {
        crate::graph::cache::find_line(&self.text, (self.body, self.text.len()), id)
    }

    /// Returns "now" for scoring.
    pub fn now(&self, time: Timestamp) -> Now {
        Now { time, interactions: self.interactions }
    }

    /// Looks up an entry's inputs.
    pub fn get(&self, id: &str) -> Option<DecayInputs> {
        let f: Vec<&str> = self.find(id)?.split('\t').collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_found_and_no_other() {
        let ids: Vec<String> = (0..500).map(|i| format!("episode:2026-01-01#{i:04}")).collect();
        let mut text = String::from("#interactions\t42\n");
        for (i, id) in ids.iter().enumerate() {
            text.push_str(&format!(
                "{id}\t1\t0.8\t{i}\t1700000000\t3\t{}\n",
                if i % 7 == 0 { "p" } else { "" }
            ));
        }
        let cache = DecayCache::from_text(text);
        assert_eq!(cache.interactions, 42);
        for (i, id) in ids.iter().enumerate() {
            let got = cache.get(id).unwrap_or_else(|| panic!("{id} not found"));
            assert_eq!(got.access_count, i as u64);
            assert_eq!(got.pinned, i % 7 == 0);
        }
        for missing in ["", "a", "episode:2026-01-01#0000x", "zzz", "episode:2026-01-01#"] {
            assert!(cache.get(missing).is_none(), "{missing}");
        }
        assert!(DecayCache::from_text(String::new()).get("x").is_none());
    }
}
