//! Three-way merge of the decay file for `sync --remote`. It works on the JSON tree rather
//! than on [`DecayFile`](super::DecayFile) so that keys this version does not know (written by
//! a newer cogmem on the other machine) survive the merge; what each known key means (the
//! interaction count adds up, a band travels with its score, the access-fold marker is this
//! machine's) is decided here, beside the file's other readers and writers.

use serde_json::{Map, Value};

use cogmem_text::merge::{Unmergeable, pick3};

use crate::store::episode::Rename;

/// Three-way merge of `decay-scores.json` (or one of its shards) for `sync --remote`: entries of both sides; for an entry both changed, the later
/// `last_accessed`, the larger `access_count` and `last_interaction`, and the band and score
/// of the side that forgot it or used it last. The interaction count adds both sides' new
/// interactions. `renames` maps episode ids that moved in merged day files, per side.
///
/// # Errors
///
/// When our or their copy is not a JSON object.
pub fn merge3(
    base: Option<&str>,
    ours: &str,
    theirs: &str,
    renames: &DecayRenames,
) -> Result<String, Unmergeable> {
    let parse = |text: &str, side: &str| -> Result<Map<String, Value>, Unmergeable> {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => Ok(m),
            _ => Err(format!("{side} copy is not a JSON object; fix it with `cogmem decay`")),
        }
    };
    let mut b = match base {
        Some(text) => parse(text, "the common ancestor's").unwrap_or_default(),
        None => Map::new(),
    };
    let mut o = parse(ours, "our")?;
    let mut t = parse(theirs, "their")?;
    rename_entries(&mut b, &renames.base);
    rename_entries(&mut o, &renames.ours);
    rename_entries(&mut t, &renames.theirs);
    let mut out = Map::new();
    let keys = o.keys().chain(t.keys().filter(|k| !o.contains_key(*k))).cloned();
    for key in keys.collect::<Vec<_>>() {
        let v = match key.as_str() {
            "entries" => Some(Value::Object(merge_entries(
                b.get("entries").and_then(Value::as_object),
                o.get("entries").and_then(Value::as_object),
                t.get("entries").and_then(Value::as_object),
            ))),
            "interactions" => {
                let n = |m: &Map<String, Value>| m.get("interactions").and_then(Value::as_u64);
                let (bn, on, tn) = (n(&b).unwrap_or(0), n(&o).unwrap_or(0), n(&t).unwrap_or(0));
                let sum = if on >= bn && tn >= bn { on + tn - bn } else { on.max(tn) };
                Some(Value::from(sum))
            }
            // The marker of the last folded access batch names a batch of this machine's own
            // `.cogmem/access.log`, so ours is the one that means something here.
            "access_fold" => o.get(&key).cloned(),
            _ => merge_value(b.get(&key), o.get(&key), t.get(&key)),
        };
        if let Some(v) = v {
            out.insert(key, v);
        }
    }
    let mut s = serde_json::to_string_pretty(&Value::Object(out))
        .map_err(|e| format!("cannot write the merged JSON: {e}"))?;
    s.push('\n');
    Ok(s)
}

/// Episode ids that moved, per side.
#[derive(Debug, Clone, Default)]
pub struct DecayRenames {
    /// In the common ancestor.
    pub base: Vec<Rename>,
    /// On our side.
    pub ours: Vec<Rename>,
    /// On their side.
    pub theirs: Vec<Rename>,
}

fn rename_entries(root: &mut Map<String, Value>, renames: &[Rename]) {
    if renames.is_empty() {
        return;
    }
    let Some(Value::Object(entries)) = root.get_mut("entries") else { return };
    let old = std::mem::take(entries);
    for (k, v) in old {
        let k = renames.iter().find(|(from, _)| *from == k).map_or(k, |(_, to)| to.clone());
        entries.insert(k, v);
    }
}

fn merge_entries(
    base: Option<&Map<String, Value>>,
    ours: Option<&Map<String, Value>>,
    theirs: Option<&Map<String, Value>>,
) -> Map<String, Value> {
    let empty = Map::new();
    let (b, o, t) = (base.unwrap_or(&empty), ours.unwrap_or(&empty), theirs.unwrap_or(&empty));
    let mut out = Map::new();
    let keys = o.keys().chain(t.keys().filter(|k| !o.contains_key(*k))).cloned();
    for key in keys.collect::<Vec<_>>() {
        let merged = match (b.get(&key), o.get(&key), t.get(&key)) {
            (_, Some(Value::Object(oe)), Some(Value::Object(te))) => {
                let be = b.get(&key).and_then(Value::as_object);
                Some(Value::Object(merge_entry(be, oe, te)))
            }
            // Removed on one side (permanent deletion): gone unless the other side changed it.
            (Some(bv), Some(v), None) | (Some(bv), None, Some(v)) if bv == v => None,
            (_, Some(v), None) | (_, None, Some(v)) => Some(v.clone()),
            (bv, ov, tv) => merge_value(bv, ov, tv),
        };
        if let Some(v) = merged {
            out.insert(key, v);
        }
    }
    out
}

fn merge_entry(
    base: Option<&Map<String, Value>>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
) -> Map<String, Value> {
    if ours == theirs || base == Some(theirs) {
        return ours.clone();
    }
    if base == Some(ours) {
        return theirs.clone();
    }
    let field = |m: Option<&Map<String, Value>>, k: &str| m.and_then(|m| m.get(k)).cloned();
    let mut out = Map::new();
    let keys = ours.keys().chain(theirs.keys().filter(|k| !ours.contains_key(*k))).cloned();
    for key in keys.collect::<Vec<_>>() {
        let (bv, ov, tv) = (field(base, &key), ours.get(&key), theirs.get(&key));
        if let Some(v) = merge_value(bv.as_ref(), ov, tv) {
            out.insert(key, v);
        }
    }
    // The band and score belong together: take both from the side that forgot the memory, or
    // else from the side that used it last.
    let last = |m: &Map<String, Value>| {
        m.get("last_accessed").and_then(Value::as_str).unwrap_or("").to_owned()
    };
    let source = match (ours.contains_key("archive"), theirs.contains_key("archive")) {
        (true, false) => ours,
        (false, true) => theirs,
        _ if last(theirs) > last(ours) => theirs,
        _ => ours,
    };
    for key in ["status", "current_score"] {
        if let Some(v) = source.get(key) {
            out.insert(key.to_owned(), v.clone());
        }
    }
    out
}

/// Merges one JSON value: the side that changed it; for objects both changed, key by key;
/// for numbers or strings both changed, the greater (a count, a later time) so that every
/// machine reaches the same result; for lists, ours and then theirs' other items; otherwise
/// ours.
fn merge_value(
    base: Option<&Value>,
    ours: Option<&Value>,
    theirs: Option<&Value>,
) -> Option<Value> {
    if let Ok(v) = pick3(base, ours, theirs) {
        return v.cloned();
    }
    match (ours, theirs) {
        (Some(Value::Object(o)), Some(Value::Object(t))) => {
            let b = base.and_then(Value::as_object);
            let mut out = Map::new();
            let keys = o.keys().chain(t.keys().filter(|k| !o.contains_key(*k))).cloned();
            for key in keys.collect::<Vec<_>>() {
                if let Some(v) = merge_value(b.and_then(|b| b.get(&key)), o.get(&key), t.get(&key))
                {
                    out.insert(key, v);
                }
            }
            Some(Value::Object(out))
        }
        (Some(Value::Number(o)), Some(Value::Number(t))) => {
            let (of, tf) = (o.as_f64().unwrap_or(0.0), t.as_f64().unwrap_or(0.0));
            Some(if tf > of { Value::Number(t.clone()) } else { Value::Number(o.clone()) })
        }
        (Some(Value::String(o)), Some(Value::String(t))) => Some(Value::String(o.max(t).clone())),
        // Lists both sides grew (recent reward outcomes): ours, then theirs' new items.
        (Some(Value::Array(o)), Some(Value::Array(t))) => {
            let mut out = o.clone();
            out.extend(t.iter().filter(|x| !o.contains(x)).cloned());
            Some(Value::Array(out))
        }
        (Some(o), _) => Some(o.clone()),
        (None, t) => t.cloned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decay_takes_later_access_and_larger_count() {
        let base = r#"{"version":3,"interactions":2,"entries":{"entity:person--alice":{"access_count":1,"last_accessed":"2026-12-01T09:00:00Z","status":"active","current_score":0.8}}}"#;
        let ours = r#"{"version":3,"interactions":5,"entries":{"entity:person--alice":{"access_count":4,"last_accessed":"2026-12-01T10:00:00Z","status":"active","current_score":0.9}},"x":1}"#;
        let theirs = r#"{"version":3,"interactions":3,"entries":{"entity:person--alice":{"access_count":2,"last_accessed":"2026-12-01T11:00:00Z","status":"active","current_score":0.85},"episode:2026-12-01:10:00":{"access_count":1}}}"#;
        let renames = DecayRenames {
            theirs: vec![("episode:2026-12-01:10:00".into(), "episode:2026-12-01:10:00:2".into())],
            ..DecayRenames::default()
        };
        let m = merge3(Some(base), ours, theirs, &renames).unwrap();
        let v: Value = serde_json::from_str(&m).unwrap();
        let a = &v["entries"]["entity:person--alice"];
        assert_eq!(a["access_count"], 4);
        assert_eq!(a["last_accessed"], "2026-12-01T11:00:00Z");
        assert_eq!(a["current_score"], 0.85);
        assert_eq!(v["interactions"], 6);
        assert_eq!(v["x"], 1);
        assert!(v["entries"].get("episode:2026-12-01:10:00:2").is_some());
        assert!(v["entries"].get("episode:2026-12-01:10:00").is_none());
        let lists = merge3(
            Some(r#"{"l":[1]}"#),
            r#"{"l":[1,2]}"#,
            r#"{"l":[1,3]}"#,
            &DecayRenames::default(),
        )
        .unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&lists).unwrap()["l"],
            serde_json::json!([1, 2, 3])
        );
    }
}
