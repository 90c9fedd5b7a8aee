//! The embedding example (`examples/embed.rs`) as a test: its own source is compiled into this
//! test binary and its `run` called, so the test checks exactly the code the example runs,
//! without a `cargo run --example` (a second cargo inside the test, slow and locked out by the
//! running build). `cargo test --all-targets` builds the example itself as well.

#[path = "../../examples/embed.rs"]
#[allow(dead_code, reason = "the example's `main` is not called here")]
mod example;

#[test]
fn the_embedding_example_remembers_and_finds_through_the_library() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("agent-memory");
    let mut out = Vec::new();
    let hits = example::run(&root, "tea", &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(hits, 1, "{out}");
    let (_, hits_text) = out.split_once("search \"tea\": 1 hit(s)\n").expect("the hit count");
    assert!(hits_text.contains("Alice prefers green tea in the morning"), "{out}");
    assert!(!hits_text.contains("Atlas"), "{out}");
    // Two commits besides init's, made through the library alone.
    let repo = git2::Repository::open(&root).unwrap();
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    let subjects: Vec<String> =
        walk.map(|id| cogmem::git::subject(&repo.find_commit(id.unwrap()).unwrap())).collect();
    assert!(
        subjects.iter().filter(|s| s.contains("Alice") || s.contains("Atlas")).count() == 2,
        "{subjects:?}"
    );
}
