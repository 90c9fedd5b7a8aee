//! `memory/meta/decay-scores.json`: decay entries keyed `<kind>:<id>` plus reflection state and
//! the token economy. Reads versions 1–3, writes version 3, and keeps every field it does not
//! know, in order, so files written by the cognitive-memory skill survive a round trip.

use std::path::Path;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};

use super::{Store, StoreError};
use crate::Timestamp;
use crate::decay::{self, Band, DecayInputs, Now};
use crate::settings::DecaySettings;

/// The parsed file.
#[derive(Debug, Clone)]
pub struct DecayFile {
    root: Map<String, Value>,
}

/// A new memory unit's decay entry.
#[derive(Debug, Clone, Copy)]
pub struct NewUnit {
    /// Its store.
    pub store: Store,
    /// Base relevance.
    pub base: f64,
    /// Creation time.
    pub created: DateTime<Utc>,
    /// Pinned (vault).
    pub pinned: bool,
}

impl DecayFile {
    /// Parses the file; `path` is only used in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Self, StoreError> {
        let value: Value = serde_json::from_str(text).map_err(|e| StoreError::Malformed {
            path: path.to_owned(),
            line: e.line(),
            what: format!("not valid JSON: {}", json_message(&e)),
        })?;
        let Value::Object(mut root) = value else {
            return Err(StoreError::Malformed {
                path: path.to_owned(),
                line: 1,
                what: "expected a JSON object".into(),
            });
        };
        match root.get("entries") {
            None => {
                root.insert("entries".into(), Value::Object(Map::new()));
            }
            Some(Value::Object(_)) => {}
            Some(_) => {
                return Err(StoreError::Malformed {
                    path: path.to_owned(),
                    line: 1,
                    what: "`entries` must be an object".into(),
                });
            }
        }
        upgrade(&mut root);
        Ok(Self { root })
    }

    /// Tells whether an entry exists.
    pub fn has(&self, key: &str) -> bool {
        self.entries().is_some_and(|e| e.contains_key(key))
    }

    /// Returns the number of entries.
    pub fn len(&self) -> usize {
        self.entries().map_or(0, Map::len)
    }

    /// Tells whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn entries(&self) -> Option<&Map<String, Value>> {
        self.root.get("entries").and_then(Value::as_object)
    }

    /// Adds an entry for a new unit; returns `false` (and changes nothing) if the key exists.
    pub fn insert_new(&mut self, key: &str, unit: NewUnit, p: &DecaySettings) -> bool {
        if self.has(key) {
            return false;
        }
        let weight = if unit.pinned { 1.0 } else { type_weight(unit.store, p) };
        let created = unit.created.fixed_offset();
        let interactions = self.interactions();
        let inputs = DecayInputs {
            base: unit.base,
            type_weight: weight,
            access_count: 1,
            last_accessed: created,
            last_interaction: interactions,
            pinned: unit.pinned,
            forgotten: false,
        };
        let score = decay::relevance(&inputs, &Now { time: created, interactions }, p);
        let stamp = unit.created.format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let Some(Value::Object(entries)) = self.root.get_mut("entries") else { return false };
        entries.insert(
            key.to_owned(),
            json!({
                "store": unit.store.as_str(),
                "base_relevance": unit.base,
                "created": stamp,
                "last_accessed": stamp,
                "access_count": 1,
                "type_weight": weight,
                "current_score": (score * 1000.0).round() / 1000.0,
                "status": decay::band(score, p).as_str(),
                "pinned": unit.pinned,
                "last_interaction": interactions,
            }),
        );
        true
    }

    /// Returns an entry's fields.
    pub fn entry(&self, key: &str) -> Option<&Map<String, Value>> {
        self.entries()?.get(key)?.as_object()
    }

    /// Returns an entry's fields for editing.
    pub fn entry_mut(&mut self, key: &str) -> Option<&mut Map<String, Value>> {
        self.root.get_mut("entries")?.as_object_mut()?.get_mut(key)?.as_object_mut()
    }

    /// Removes an entry (permanent deletion only), keeping the others in order.
    pub fn remove_entry(&mut self, key: &str) -> bool {
        self.root
            .get_mut("entries")
            .and_then(Value::as_object_mut)
            .is_some_and(|e| e.shift_remove(key).is_some())
    }

    /// Tells whether an entry is archived (forgotten).
    pub fn is_archived(&self, key: &str) -> bool {
        self.entry(key).and_then(|e| e.get("status")).and_then(Value::as_str) == Some("archived")
    }

    /// Tells whether an entry was forgotten (it has an `archive` record), as opposed to having
    /// faded into the archived band.
    pub fn is_forgotten(&self, key: &str) -> bool {
        self.entry(key).is_some_and(|e| e.contains_key("archive"))
    }

    /// Tells whether an entry is pinned.
    pub fn is_pinned(&self, key: &str) -> bool {
        self.entry(key).and_then(|e| e.get("pinned")).and_then(Value::as_bool) == Some(true)
    }

    /// Returns every entry key, in file order.
    pub fn keys(&self) -> Vec<String> {
        self.entries().map(|e| e.keys().cloned().collect()).unwrap_or_default()
    }

    /// Returns the workspace's interaction count (remember and recall operations so far).
    pub fn interactions(&self) -> u64 {
        self.root.get("interactions").and_then(Value::as_u64).unwrap_or(0)
    }

    /// Adds to the interaction count.
    pub fn add_interactions(&mut self, n: u64) {
        let total = self.interactions() + n;
        self.root.insert("interactions".into(), json!(total));
    }

    /// Returns "now" for scoring: the time and the interaction count.
    pub fn now(&self, time: Timestamp) -> Now {
        Now { time, interactions: self.interactions() }
    }

    /// Returns the stored inputs of an entry's score; missing fields take safe defaults, and a
    /// timestamp that cannot be read counts as `fallback`.
    pub fn inputs(&self, key: &str, fallback: Timestamp) -> Option<DecayInputs> {
        let e = self.entry(key)?;
        let f = |k: &str| e.get(k).and_then(Value::as_f64);
        let last = e
            .get("last_accessed")
            .and_then(Value::as_str)
            .and_then(parse_time)
            .or_else(|| e.get("created").and_then(Value::as_str).and_then(parse_time))
            .unwrap_or(fallback);
        Some(DecayInputs {
            base: f("base_relevance").unwrap_or(1.0),
            type_weight: f("type_weight").unwrap_or(1.0),
            access_count: e.get("access_count").and_then(Value::as_u64).unwrap_or(1),
            last_accessed: last,
            last_interaction: e.get("last_interaction").and_then(Value::as_u64).unwrap_or(0),
            pinned: e.get("pinned").and_then(Value::as_bool).unwrap_or(false),
            forgotten: e.get("archive").is_some(),
        })
    }

    /// Returns an entry's stored band.
    pub fn band(&self, key: &str) -> Option<Band> {
        self.entry(key)?.get("status")?.as_str().and_then(Band::parse)
    }

    /// Records a use: one more access, now.
    pub fn touch(&mut self, key: &str, at: Timestamp, interaction: u64) -> bool {
        let stamp = at.with_timezone(&chrono::Utc).format("%Y-%m-%dT%H:%M:%SZ").to_string();
        let Some(e) = self.entry_mut(key) else { return false };
        let count = e.get("access_count").and_then(Value::as_u64).unwrap_or(1) + 1;
        e.insert("access_count".into(), json!(count));
        e.insert("last_accessed".into(), json!(stamp));
        e.insert("last_interaction".into(), json!(interaction));
        true
    }

    /// Stores a recomputed score and its band; returns the band it had before.
    pub fn set_score(&mut self, key: &str, score: f64, band: Band) -> Option<Band> {
        let before = self.band(key);
        let e = self.entry_mut(key)?;
        e.insert("current_score".into(), json!((score * 1000.0).round() / 1000.0));
        e.insert("status".into(), json!(band.as_str()));
        before
    }

    /// Pins or unpins an entry; returns whether it changed.
    pub fn set_pinned(&mut self, key: &str, pinned: bool) -> bool {
        let Some(e) = self.entry_mut(key) else { return false };
        if e.get("pinned").and_then(Value::as_bool) == Some(pinned) {
            return false;
        }
        e.insert("pinned".into(), json!(pinned));
        true
    }

    /// Returns the hash of the last access-log batch folded into this file.
    pub fn access_fold(&self) -> Option<&str> {
        self.root.get("access_fold").and_then(Value::as_str)
    }

    /// Records the hash of the access-log batch just folded.
    pub fn set_access_fold(&mut self, hash: &str) {
        self.root.insert("access_fold".into(), json!(hash));
    }

    /// Renders the file as pretty JSON with a final newline.
    pub fn to_text(&self) -> String {
        let mut s = serde_json::to_string_pretty(&self.root).expect("a JSON map always serialises");
        s.push('\n');
        s
    }
}

/// serde_json's message without its " at line L column C" suffix (the line is ours already).
fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rsplit_once(" at line ") {
        Some((msg, _)) => format!("{msg} (column {})", e.column()),
        None => text,
    }
}

/// Reads a stored time: RFC 3339, or the skill's minute precision (`2026-02-01T09:15Z`).
pub fn parse_time(text: &str) -> Option<Timestamp> {
    chrono::DateTime::parse_from_rfc3339(text).ok().or_else(|| {
        chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%dT%H:%MZ")
            .ok()
            .map(|n| n.and_utc().fixed_offset())
    })
}

/// Returns the decay weight of a store.
pub fn type_weight(store: Store, p: &DecaySettings) -> f64 {
    let w = &p.type_weights;
    match store {
        Store::Core => w.core,
        Store::Episodic => w.episodic,
        Store::Semantic => w.semantic,
        Store::Procedural => w.procedural,
        Store::Vault => 1.0,
    }
}

/// Brings a version 1 or 2 file to version 3 by adding the fields it lacks.
fn upgrade(root: &mut Map<String, Value>) {
    let defaults = [
        ("last_reflection", Value::Null),
        ("last_reflection_episode", Value::Null),
        ("last_self_image_consolidation", Value::Null),
        ("self_awareness_count_since_consolidation", json!(0)),
        (
            "token_economy",
            json!({
                "baseline": 8000,
                "totals": {"extra_requested": 0, "extra_granted": 0, "self_penalty": 0, "user_penalty": 0, "user_bonus": 0},
                "metrics": {"assessment_accuracy": null, "extra_grant_rate": null, "self_penalty_frequency": null},
                "recent_outcomes": []
            }),
        ),
    ];
    let old = root.get("version").and_then(Value::as_u64).unwrap_or(1);
    if old >= 3 {
        return;
    }
    root.insert("version".into(), json!(3));
    for (key, value) in defaults {
        if !root.contains_key(key) {
            root.insert(key.into(), value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_is_upgraded_and_unknown_fields_kept_in_order() {
        let text = r#"{"version":1,"custom":"keep","last_reflection":null,"entries":{"entity:person--a":{"store":"semantic","x":1}}}"#;
        let mut f = DecayFile::parse(text, Path::new("d.json")).unwrap();
        let p = DecaySettings::default();
        let unit = NewUnit {
            store: Store::Episodic,
            base: 1.0,
            created: "2026-02-02T10:00:00Z".parse().unwrap(),
            pinned: false,
        };
        assert!(f.insert_new("episode:2026-02-02:10:00", unit, &p));
        assert!(!f.insert_new("episode:2026-02-02:10:00", unit, &p));
        let out = f.to_text();
        assert!(out.find("\"custom\"").unwrap() < out.find("\"entries\"").unwrap());
        assert!(out.contains("\"version\": 3"));
        assert!(out.contains("\"x\": 1"));
        let v: Value = serde_json::from_str(&out).unwrap();
        let e = &v["entries"]["episode:2026-02-02:10:00"];
        assert_eq!(e["current_score"], json!(0.8));
        assert_eq!(e["status"], json!("active"));
        assert_eq!(e["access_count"], json!(1));
    }

    #[test]
    fn bad_json_names_the_line() {
        let err = DecayFile::parse("{\n\"entries\": {,}\n}", Path::new("m/d.json")).unwrap_err();
        assert!(err.to_string().starts_with("m/d.json:2: not valid JSON"), "{err}");
    }
}
