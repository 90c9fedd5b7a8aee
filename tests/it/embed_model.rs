//! The optional static embedding model (issue 22, item 4): a tiny model in the model2vec layout
//! that each test writes itself (a safetensors matrix over a dozen words and a WordLevel
//! `tokenizer.json`), real binary or library, real git. Paraphrases are found through it only
//! where keywords fall short; vectors under `.cogmem/vectors/` are incremental and follow the
//! model; a bad model folder is a warning and keywords still answer.
//! (`embed.rs` is about embedding the library in a program; this is about embedding models.)

use std::path::Path;
use std::sync::Arc;

use cogmem::audit::Actor;
use cogmem::embed::Embedder;
use cogmem::index::search::SearchOptions;
use cogmem::ops::remember::{RememberRequest, remember};
use cogmem::ops::search;

use crate::common::{TestEnv, clock, jsonl_message};

/// The tiny model's words and their 4-dimensional rows: each topic is one direction, so a
/// paraphrase (other words, same topic) has cosine 1 and another topic 0. Row 0 is `[UNK]`,
/// which every other word maps to, and is zero.
const WORDS: &[(&str, [f32; 4])] = &[
    ("[UNK]", [0.0, 0.0, 0.0, 0.0]),
    ("shellfish", [1.0, 0.0, 0.0, 0.0]),
    ("shrimp", [0.9, 0.1, 0.0, 0.0]),
    ("crab", [1.0, 0.0, 0.1, 0.0]),
    ("seafood", [1.0, 0.0, 0.0, 0.0]),
    ("password", [0.0, 1.0, 0.0, 0.0]),
    ("credentials", [0.0, 1.0, 0.0, 0.0]),
    ("secret", [0.0, 0.9, 0.0, 0.1]),
    ("garden", [0.0, 0.0, 1.0, 0.0]),
    ("tomatoes", [0.0, 0.0, 0.9, 0.1]),
    ("vegetables", [0.0, 0.0, 1.0, 0.0]),
    ("guitar", [0.0, 0.0, 0.0, 1.0]),
    ("music", [0.0, 0.0, 0.0, 1.0]),
];

/// A safetensors file: an 8-byte little-endian header length, a JSON header, the raw data.
fn safetensors(name: &str, rows: &[[f32; 4]], f16: bool) -> Vec<u8> {
    let mut data = Vec::new();
    for row in rows {
        for x in row {
            if f16 {
                data.extend_from_slice(&to_f16(*x).to_le_bytes());
            } else {
                data.extend_from_slice(&x.to_le_bytes());
            }
        }
    }
    let dtype = if f16 { "F16" } else { "F32" };
    let mut header = format!(
        r#"{{"{name}":{{"dtype":"{dtype}","shape":[{},4],"data_offsets":[0,{}]}}}}"#,
        rows.len(),
        data.len()
    );
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&data);
    out
}

/// Single to half precision, for the values the tiny model uses (0, 0.1, 0.9, 1).
fn to_f16(x: f32) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let frac = ((bits >> 13) & 0x3ff) as u16;
    ((exp as u16) << 10) | frac
}

fn tokenizer_json() -> String {
    let vocab: Vec<String> =
        WORDS.iter().enumerate().map(|(i, (w, _))| format!("\"{w}\":{i}")).collect();
    format!(
        r#"{{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],
"normalizer":{{"type":"Lowercase"}},"pre_tokenizer":{{"type":"Whitespace"}},
"post_processor":null,"decoder":null,
"model":{{"type":"WordLevel","vocab":{{{}}},"unk_token":"[UNK]"}}}}"#,
        vocab.join(",")
    )
}

/// Writes the tiny model into `dir` (F16 when `f16`).
fn write_model(dir: &Path, f16: bool) {
    std::fs::create_dir_all(dir).unwrap();
    let rows: Vec<[f32; 4]> = WORDS.iter().map(|(_, r)| *r).collect();
    std::fs::write(dir.join("model.safetensors"), safetensors("embeddings", &rows, f16)).unwrap();
    std::fs::write(dir.join("tokenizer.json"), tokenizer_json()).unwrap();
}

fn hits(out: &crate::common::Output) -> Vec<serde_json::Value> {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

fn remember_cli(env: &TestEnv, text: &str) {
    env.mutate(["remember", text]).success();
}

#[test]
fn a_paraphrase_is_found_only_through_the_model() {
    let env = TestEnv::initialized();
    let model = env.root.parent().unwrap().join("tiny-model");
    write_model(&model, false);
    remember_cli(&env, "Kenji is allergic to shellfish and shrimp");
    remember_cli(&env, "The staging password rotates every ninety days");
    let query = "which seafood is off the menu";
    let without = env.run(["--json", "search", query]).success();
    assert_eq!(hits(&without), Vec::<serde_json::Value>::new());
    let with = env.run(["--json", "search", query]).env("COGMEM_EMBEDDING_MODEL", &model).success();
    let found = hits(&with);
    assert_eq!(found.len(), 1, "{}", with.stdout);
    assert!(found[0]["text"].as_str().unwrap().contains("shellfish"), "{}", with.stdout);
    assert_eq!(found[0]["via"], "embedding");
    assert!(found[0]["cosine"].as_f64().unwrap() > 0.9, "{}", with.stdout);
    assert!(with.stderr.is_empty(), "{}", with.stderr);
    // The human output says so too, with the cosine.
    let text = env.run(["search", query]).env("COGMEM_EMBEDDING_MODEL", &model).success();
    assert!(text.stdout.contains("(active, embedding, cosine 1.00)"), "{}", text.stdout);
    // The vectors are derived: under .cogmem/, nothing committed, nothing left to commit.
    assert!(env.path(".cogmem/vectors/vectors.bin").is_file());
    env.assert_clean_tree();
}

#[test]
fn the_settings_name_the_model_relative_to_the_workspace() {
    let env = TestEnv::initialized();
    write_model(&env.path(".cogmem/models/tiny"), false);
    remember_cli(&env, "We grow tomatoes in the garden every spring");
    let toml = env.read("cogmem.toml");
    env.write(
        "cogmem.toml",
        &format!("{toml}\n[search]\nembedding_model = \".cogmem/models/tiny\"\n"),
    );
    let out = env.run(["--json", "search", "which vegetables do we plant"]).success();
    let found = hits(&out);
    assert_eq!(found.len(), 1, "{}", out.stdout);
    assert_eq!(found[0]["via"], "embedding");
}

fn request(text: &str) -> RememberRequest {
    RememberRequest::new(text, Actor::parse("test-agent").unwrap()).unwrap()
}

/// One file changed, one file re-embedded; a different model, every vector again.
#[test]
fn vectors_are_incremental_and_rebuilt_when_the_model_changes() {
    let env = TestEnv::new();
    let ws = env.lib_init();
    let model = env.root.parent().unwrap().join("tiny-model");
    write_model(&model, false);
    let day1 = clock("2026-12-01T10:00:00Z");
    let day2 = clock("2026-12-02T10:00:00Z");
    remember(&ws, &request("Kenji is allergic to shellfish"), &day1).unwrap();
    remember(&ws, &request("The garden needs tomatoes"), &day2).unwrap();
    let opts = |e: &Arc<Embedder>| SearchOptions {
        limit: 10,
        embedder: Some(Arc::clone(e)),
        ..Default::default()
    };
    let embedder = Arc::new(Embedder::new(&model));
    let first = search::search(&ws, "seafood", &opts(&embedder), &day2).unwrap();
    let v = first.vectors.expect("the model was asked");
    assert!(v.rebuilt, "{v:#?}");
    assert!(v.embedded.contains(&"memory/episodes/2026-12-01.md".to_owned()), "{v:#?}");
    assert!(v.embedded.contains(&"memory/episodes/2026-12-02.md".to_owned()), "{v:#?}");
    assert_eq!(first.hits.first().map(|h| h.via), Some(Some("embedding")), "{:#?}", first.hits);

    // Nothing changed: nothing embedded.
    let embedder = Arc::new(Embedder::new(&model));
    let again = search::search(&ws, "seafood", &opts(&embedder), &day2).unwrap();
    let v = again.vectors.unwrap();
    assert!(!v.rebuilt && v.embedded.is_empty(), "{v:#?}");

    // One file changed: that file alone is embedded again.
    remember(&ws, &request("A secret was shared"), &day2).unwrap();
    let embedder = Arc::new(Embedder::new(&model));
    let after = search::search(&ws, "credentials", &opts(&embedder), &day2).unwrap();
    let v = after.vectors.unwrap();
    assert!(!v.rebuilt, "{v:#?}");
    assert_eq!(v.embedded, ["memory/episodes/2026-12-02.md"], "{v:#?}");
    assert_eq!(v.vectors, 3 + core_entries(&ws), "{v:#?}");
    assert!(after.hits[0].text.contains("secret"), "{:#?}", after.hits);

    // A different model (here the same rows in F16): every vector again, still found.
    write_model(&model, true);
    let embedder = Arc::new(Embedder::new(&model));
    let changed = search::search(&ws, "seafood", &opts(&embedder), &day2).unwrap();
    let v = changed.vectors.unwrap();
    assert!(v.rebuilt, "{v:#?}");
    assert_eq!(v.reason.as_deref(), Some("the embedding model changed"));
    assert!(changed.hits[0].text.contains("shellfish"), "{:#?}", changed.hits);
}

/// Entries the index holds besides the remembered ones (MEMORY.md's sections).
fn core_entries(ws: &cogmem::Workspace) -> usize {
    let (_, report) = cogmem::index::open(ws, false, None).unwrap();
    usize::try_from(report.documents).unwrap() - 3
}

/// Searches "shellfish seafood" with the model folder `model`: one keyword hit, and one warning
/// that starts with `warning` (the temporary folder shows as [TMP]) and carries a hint.
fn one_hit_and_the_warning(env: &TestEnv, model: &Path, warning: &str) {
    let out = env
        .run(["--json", "search", "shellfish seafood"])
        .env("COGMEM_EMBEDDING_MODEL", model)
        .success();
    assert_eq!(hits(&out).len(), 1, "{}", out.stdout);
    assert!(out.stderr.contains(warning), "{}", out.stderr);
    assert!(
        out.stderr.contains("hint:") && out.stderr.contains("embedding_model"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.matches("warning:").count(), 1, "{}", out.stderr);
}

#[test]
fn a_bad_model_is_a_warning_and_keywords_still_answer() {
    let env = TestEnv::initialized();
    remember_cli(&env, "Kenji is allergic to shellfish");
    let model = env.root.parent().unwrap().join("bad-model");
    write_model(&model, false);
    std::fs::write(model.join("model.safetensors"), b"not a matrix").unwrap();
    one_hit_and_the_warning(
        &env,
        &model,
        "warning: [TMP]/bad-model/model.safetensors: not an embedding matrix",
    );

    std::fs::remove_file(model.join("tokenizer.json")).unwrap();
    write_model(&model.join("unused"), false);
    std::fs::copy(model.join("unused/model.safetensors"), model.join("model.safetensors")).unwrap();
    one_hit_and_the_warning(
        &env,
        &model,
        "warning: [TMP]/bad-model/tokenizer.json: cannot read: No such file",
    );
    env.assert_clean_tree();
}

#[test]
fn keyword_results_are_unchanged_when_keywords_find_enough() {
    let env = TestEnv::initialized();
    let model = env.root.parent().unwrap().join("tiny-model");
    write_model(&model, false);
    remember_cli(&env, "Kenji is allergic to shellfish");
    remember_cli(&env, "Shellfish stew for Kenji was a mistake");
    remember_cli(&env, "Seafood platter ordered for the team");
    remember_cli(&env, "Crab and shrimp at the harbour");
    for limit in ["1", "2"] {
        let args = ["--json", "search", "--limit", limit, "Kenji shellfish"];
        let without = env.run(args).success();
        let with = env.run(args).env("COGMEM_EMBEDDING_MODEL", &model).success();
        assert_eq!(without.stdout, with.stdout, "limit {limit}");
    }
    // Fewer keyword hits than asked for: the model adds after them, never before.
    let without = hits(&env.run(["--json", "search", "Kenji shellfish"]).success());
    let with = hits(
        &env.run(["--json", "search", "Kenji shellfish"])
            .env("COGMEM_EMBEDDING_MODEL", &model)
            .success(),
    );
    assert_eq!(without.len(), 2);
    assert!(with.len() > 2, "{with:#?}");
    for (a, b) in without.iter().zip(&with) {
        assert_eq!(a["id"], b["id"]);
        assert!(b.get("via").is_none());
    }
    assert!(with[2..].iter().all(|h| h["via"] == "embedding"), "{with:#?}");

    // A keyword hit holding few of the query's words keeps its place too: what the model finds
    // comes after it (on LoCoMo most right answers hold few of a long question's words).
    remember_cli(&env, "Kenji booked the garden table for Friday");
    remember_cli(&env, "The staging credentials rotate monthly");
    let query = "Kenji garden password harbour";
    let without = hits(&env.run(["--json", "search", query]).success());
    let with =
        hits(&env.run(["--json", "search", query]).env("COGMEM_EMBEDDING_MODEL", &model).success());
    assert!(!without.is_empty() && with.len() > without.len(), "{with:#?}");
    for (a, b) in without.iter().zip(&with) {
        assert_eq!(a["id"], b["id"], "{with:#?}");
    }
    assert!(with[without.len()..].iter().all(|h| h["via"] == "embedding"), "{with:#?}");
}

/// When few hits match a query word (issue 22), the model's hits may take the places of the
/// messages that only came in as a best hit's neighbours, and come before them; the keyword
/// hit keeps its place.
#[test]
fn the_model_takes_the_places_of_neighbours_not_of_keyword_hits() {
    let env = TestEnv::initialized();
    let model = env.root.parent().unwrap().join("tiny-model");
    write_model(&model, false);
    let line = |ts: &str, text: &str, id: &str| jsonl_message(ts, "Ann", text, id);
    let talk = [
        line("2026-11-20T10:00:00Z", "Kenji is allergic to shellfish", "m0"),
        line("2026-11-20T10:01:00Z", "Noted, thanks", "m1"),
        line("2026-11-20T10:02:00Z", "The guitar lesson is on Monday", "m2"),
        line("2026-11-25T10:00:00Z", "Crab and shrimp at the harbour", "m3"),
    ]
    .concat();
    env.write("../talk.jsonl", &talk);
    env.mutate(["import", "--format", "jsonl", "../talk.jsonl"]);
    let args = ["--json", "search", "--limit", "3", "shellfish"];
    let sources = |h: &[serde_json::Value]| -> Vec<String> {
        h.iter().map(|x| x["source"].as_str().unwrap_or("").to_owned()).collect()
    };
    let without = hits(&env.run(args).success());
    assert_eq!(sources(&without), ["m0", "m1", "m2"], "{without:#?}");
    assert!(without[1]["bm25"] == 0.0 && without[2]["bm25"] == 0.0, "{without:#?}");
    let with = hits(&env.run(args).env("COGMEM_EMBEDDING_MODEL", &model).success());
    assert_eq!(sources(&with), ["m0", "m3", "m1"], "{with:#?}");
    assert_eq!(with[1]["via"], "embedding");
    assert!(with[0].get("via").is_none() && with[2].get("via").is_none(), "{with:#?}");
}
