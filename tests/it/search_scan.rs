//! The scan a search starts with (issue 20): a store folder whose stamp the manifest recorded is
//! not listed again, yet every hand change made between two searches is found — an edit in
//! place, a file added, deleted or renamed — and a manifest cut short is not trusted.

use std::time::Duration;

use crate::common::{TestEnv, wait_until};
use crate::watch::search;

/// A workspace with an episode, an entity and a vault note, searched until a search lists no
/// store folder (their stamps are recorded once older than a search's start).
fn settled() -> TestEnv {
    let env = TestEnv::initialized();
    env.mutate(["remember", "the budget meeting moved to Friday"]);
    env.mutate(["remember", "Alice moved to Lisbon", "--entity", "person--alice"]);
    env.mutate(["remember", "the door code is kept here", "--store", "vault"]);
    let quiet = wait_until(Duration::from_secs(20), || {
        search(&env, "budget").1.ends_with(", 0 folders listed")
    });
    assert!(quiet, "a search kept listing the store folders");
    env
}

/// The vault note's path and its id.
fn vault_note(env: &TestEnv) -> (String, String) {
    let dir = std::fs::read_dir(env.path("memory/vault")).unwrap();
    let name = dir
        .flatten()
        .map(|e| e.file_name().into_string().unwrap())
        .find(|n| n.ends_with(".md"))
        .expect("a vault note");
    let id = format!("vault:{}", name.trim_end_matches(".md"));
    (format!("memory/vault/{name}"), id)
}

#[test]
fn search_sees_a_hand_edit_in_place_without_listing_folders() {
    let env = settled();
    let (rel, id) = vault_note(&env);
    let text = env.read(&rel);
    // Rewritten in place (same inode): the folder's stamp does not change.
    std::fs::OpenOptions::new()
        .append(true)
        .open(env.path(&rel))
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"\nthe zanzibarquux lives here\n"))
        .unwrap();
    assert_ne!(env.read(&rel), text);
    let (ids, how) = search(&env, "zanzibarquux");
    assert_eq!(ids, vec![id], "{how}");
    assert!(how.ends_with(", 0 folders listed"), "{how}");
}

#[test]
fn search_sees_files_added_deleted_and_renamed_by_hand() {
    let env = settled();
    // Added.
    env.write("memory/vault/added-by-hand.md", "# Added\n\nthe quokkafrond note\n");
    let (ids, how) = search(&env, "quokkafrond");
    assert_eq!(ids, vec!["vault:added-by-hand".to_owned()], "{how}");
    // Renamed (within the folder).
    std::fs::rename(env.path("memory/vault/added-by-hand.md"), env.path("memory/vault/renamed.md"))
        .unwrap();
    let (ids, how) = search(&env, "quokkafrond");
    assert_eq!(ids, vec!["vault:renamed".to_owned()], "{how}");
    // Deleted, once the folder's stamp was recorded again.
    let quiet = wait_until(Duration::from_secs(20), || {
        search(&env, "quokkafrond").1.ends_with(", 0 folders listed")
    });
    assert!(quiet);
    std::fs::remove_file(env.path("memory/vault/renamed.md")).unwrap();
    let (ids, how) = search(&env, "quokkafrond");
    assert!(ids.is_empty(), "{ids:?} {how}");
}

#[test]
fn search_does_not_trust_folder_stamps_of_a_manifest_cut_short() {
    let env = settled();
    let (rel, id) = vault_note(&env);
    // The manifest loses its last file line (the vault note's: `memory/vault/` sorts last),
    // as a torn write would leave it; then the note is edited in place.
    let manifest = env.path(".cogmem/index/manifest.tsv");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let body = text.trim_end_matches('\n');
    let (kept, last) = body.rsplit_once('\n').unwrap();
    assert!(last.starts_with(&rel), "{last}");
    std::fs::write(&manifest, format!("{kept}\n")).unwrap();
    std::fs::OpenOptions::new()
        .append(true)
        .open(env.path(&rel))
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"\nthe wombatglyph lives here\n"))
        .unwrap();
    let (ids, how) = search(&env, "wombatglyph");
    assert_eq!(ids, vec![id], "{how}");
}

#[cfg(feature = "crash-points")]
#[test]
fn a_search_killed_before_writing_its_manifest_leaves_the_next_one_right() {
    let env = settled();
    env.write("memory/vault/added-by-hand.md", "# Added\n\nthe quokkafrond note\n");
    // Killed after the new file's documents were committed, before the manifest (and the
    // folder's new stamp) was written.
    let out = env
        .run(["search", "--json", "quokkafrond"])
        .env("COGMEM_CRASH_AT", "index-manifest")
        .output();
    assert_ne!(out.code, 0, "the search was not killed");
    // The next search lists the folder (its stamp changed), reads the file again and replaces
    // its documents: found once.
    let (ids, how) = search(&env, "quokkafrond");
    assert_eq!(ids, vec!["vault:added-by-hand".to_owned()], "{how}");
    assert!(how.ends_with(", 1 folders listed"), "{how}");
}
