//! `cogmem forget` and `cogmem restore`: archiving is reversible byte for byte; permanent
//! deletion needs an exact id; pinned memories need force.

use crate::common::TestEnv;

fn setup() -> TestEnv {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice moved to Lisbon", "--entity", "person--alice"]);
    env.mutate([
        "remember",
        "Alice works on Atlas",
        "--relation",
        "person--alice|works-on|project--atlas",
    ]);
    env.mutate(["remember", "Ship Atlas on Friday", "--store", "core"]);
    env.mutate(["remember", "the spare key is under the blue pot", "--store", "vault"]);
    env
}

/// The id of the core bullet: its section and the git blob hash of its text.
/// "Ship Atlas on Friday" as remembered on Tuesday 2026-12-01.
const STORED: &str = "Ship Atlas on Friday (2026-12-04)";

fn core_id(_env: &TestEnv) -> String {
    // "on Friday" is stored with its date (issue 18); the id is the hash of the stored bullet.
    let hash = git2::Oid::hash_object(git2::ObjectType::Blob, STORED.as_bytes()).unwrap();
    format!("core:active-context:{}", &hash.to_string()[..8])
}

#[test]
fn query_without_confirmation_only_lists() {
    let env = setup();
    let head = env.head();
    let out = env.run(["forget", "Alice Lisbon"]).output().success();
    // The fact that holds the words, with its own id, ahead of its entity (twelfth stop).
    assert!(out.stdout.starts_with(" 1. entity:person--alice:facts:[HASH]  memory/graph/entities/person--alice.md:9\n    Alice moved to Lisbon\n 2. entity:person--alice  memory/graph/entities/person--alice.md:1\n    - Alice moved to Lisbon\n"), "{out}");
    assert!(
        out.stderr.contains(
            "nothing forgotten; confirm with `cogmem forget --id entity:person--alice:facts:[HASH] --yes`"
        ),
        "{out}"
    );
    // Words that are the entity's names list the entity alone.
    let out = env.run(["forget", "Alice"]).output().success();
    assert!(!out.stdout.contains(":facts:"), "{out}");
    assert_eq!(env.head(), head);
}

/// Forget then restore puts every byte back (the audit log aside, which records both).
#[test]
fn forget_restore_round_trips_byte_for_byte() {
    let env = setup();
    let before: Vec<_> =
        env.snapshot().into_iter().filter(|(p, _)| p != "memory/meta/audit.log").collect();
    let id = core_id(&env);
    let out = env.mutate(["forget", "--id", &id, "--yes"]);
    assert!(out.stderr.starts_with("forgot (commit [HASH])\n"), "{out}");
    assert!(!env.read("MEMORY.md").contains("Ship Atlas on Friday"));
    let decay: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    assert_eq!(decay["entries"][&id]["status"], "archived");
    assert_eq!(decay["entries"][&id]["current_score"], 0.0);
    let line =
        env.audit_lines().into_iter().find(|l| l.contains("| ARCHIVE | MEMORY.md |")).unwrap();
    assert!(line.contains("| bot:trigger-forget |") || line.contains("| test-agent |"), "{line}");
    env.mutate(["forget", "--id", "entity:person--alice", "--yes"]);
    let index = env.read("memory/graph/index.md");
    assert!(!index.contains("person--alice"), "{index}");
    assert!(
        env.path("memory/graph/entities/person--alice.md").is_file(),
        "archiving keeps the file"
    );
    // Forgotten memories are not offered again.
    let out = env.run(["forget", "Alice Lisbon", "--dry-run", "--json"]).output().success();
    assert!(!out.stdout.contains("entity:person--alice"), "{out}");
    env.mutate(["restore", "entity:person--alice"]);
    env.mutate(["restore", &id]);
    let after: Vec<_> =
        env.snapshot().into_iter().filter(|(p, _)| p != "memory/meta/audit.log").collect();
    assert_eq!(after, before);
    let out = env.run(["restore", &id]).output().code(1);
    assert!(out.stderr.contains("is not forgotten, so there is nothing to restore"), "{out}");
}

#[test]
fn pinned_memories_need_force() {
    let env = setup();
    let head = env.head();
    let out = env
        .run(["forget", "--id", "vault:the-spare-key-is-under-the-blue-pot", "--yes"])
        .output()
        .code(4);
    assert!(
        out.stderr.starts_with(
            "error: vault:the-spare-key-is-under-the-blue-pot is pinned and cannot be forgotten"
        ),
        "{out}"
    );
    assert!(
        out.stderr.contains(
            "hint: if you really mean to forget a pinned memory: `cogmem forget --id \
             vault:the-spare-key-is-under-the-blue-pot --yes --force`"
        ),
        "{out}"
    );
    assert_eq!(env.head(), head);
    // Listing: the confirmation names `--force` for a pinned memory it names, not for a list
    // to pick from (the pinned one is marked there).
    let out =
        env.run(["forget", "--id", "vault:the-spare-key-is-under-the-blue-pot"]).output().success();
    assert!(out.stderr.contains("--yes --force`"), "{out}");
    env.mutate(["remember", "the spare key of the shed is with Alice"]);
    let out = env.run(["forget", "spare key"]).output().success();
    assert!(out.stdout.contains("(pinned)"), "{out}");
    assert!(out.stderr.contains("`cogmem forget --id ID --yes`"), "{out}");
    env.mutate(["forget", "--id", "vault:the-spare-key-is-under-the-blue-pot", "--yes", "--force"]);
}

#[test]
fn permanent_deletion_needs_an_exact_id_and_says_history_keeps_it() {
    let env = setup();
    let head = env.head();
    let out = env.run(["forget", "Alice Lisbon", "--permanent", "--yes"]).output().code(1);
    assert!(
        out.stderr.starts_with("error: permanent deletion needs an exact `--id` and `--yes`"),
        "{out}"
    );
    assert_eq!(env.head(), head);
    let out = env.mutate(["forget", "--id", "entity:person--alice", "--permanent", "--yes"]);
    assert!(
        out.stderr.contains(
            "the content is gone from the memory files, but git history and any audit line \
             that quoted it still hold it\n\
             erase it from those too with: cogmem forget --purge entity:person--alice\n"
        ),
        "{out}"
    );
    assert!(!env.path("memory/graph/entities/person--alice.md").exists());
    let decay: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    assert!(decay["entries"].get("entity:person--alice").is_none());
    assert!(
        env.audit_lines()
            .iter()
            .any(|l| l.contains("| DELETE | memory/graph/entities/person--alice.md |"))
    );
    // The history still has it.
    assert!(env.git(&["log", "--all", "--format=%s"]).contains("Alice moved to Lisbon"));
}

/// A core bullet forgotten before has left MEMORY.md; its decay entry keeps its text. Forgetting
/// it again says so, and `--permanent` removes that entry (guide: "also of a memory already
/// forgotten"); both failed with "no memory has the id".
#[test]
fn a_forgotten_core_bullet_can_be_forgotten_again_and_deleted_permanently() {
    let env = setup();
    let id = core_id(&env);
    env.mutate(["forget", "--id", &id, "--yes"]);
    assert!(env.read("memory/meta/decay-scores.json").contains("Ship Atlas on Friday"));
    let head = env.head();
    let out = env.run(["forget", "--id", &id, "--yes"]).output().success();
    assert!(
        out.stdout.contains("already forgotten") || out.stderr.contains("already forgotten"),
        "{out}"
    );
    assert_eq!(env.head(), head, "nothing to commit");
    env.mutate(["forget", "--id", &id, "--permanent", "--yes"]);
    let decay = env.read("memory/meta/decay-scores.json");
    assert!(!decay.contains("Ship Atlas on Friday") && !decay.contains(&id), "{decay}");
    env.assert_clean_tree();
    env.run(["verify"]).output().code(0);
}

#[test]
fn episode_entries_can_be_deleted_permanently() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "first thing"]);
    env.mutate(["remember", "second thing"]);
    env.mutate(["forget", "--id", "episode:2026-12-01:09:00", "--permanent", "--yes"]);
    let day = env.read("memory/episodes/2026-12-01.md");
    assert!(!day.contains("first thing") && day.contains("second thing"), "{day}");
    // The audit line that wrote it quotes it (append-only): the message does not claim
    // otherwise.
    assert!(env.read("memory/meta/audit.log").contains("first thing"));
}

#[test]
fn unknown_ids_and_ambiguous_queries_are_errors() {
    let env = setup();
    let out = env.run(["forget", "--id", "entity:person--nobody", "--yes"]).output().code(1);
    assert!(
        out.stderr.starts_with("error: no memory has the id \"entity:person--nobody\""),
        "{out}"
    );
    let out = env.run(["forget", "Atlas", "--yes"]).output().code(1);
    assert!(out.stderr.contains("memories match equally well; pick one"), "{out}");
}

/// Deleting an entry keeps its heading, so the ids of later entries in the same minute hold.
#[test]
fn permanent_deletion_keeps_later_ids_stable() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "first"]);
    env.mutate(["remember", "second"]);
    env.mutate(["remember", "third"]);
    env.mutate(["forget", "--id", "episode:2026-12-01:09:00", "--permanent", "--yes"]);
    let out = env.run(["show", "episode:2026-12-01:09:00:3", "--json"]).output().success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["unit"]["text"], "third");
    let out = env.run(["show", "episode:2026-12-01:09:00"]).output().code(1);
    assert!(out.stderr.contains("no memory has the id"), "{out}");
}

/// A bullet goes back after the line that preceded it, even if lines were added above.
#[test]
fn restore_after_other_edits_finds_the_right_place() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Ship Atlas on Friday", "--store", "core"]);
    let hash = git2::Oid::hash_object(git2::ObjectType::Blob, STORED.as_bytes()).unwrap();
    let id = format!("core:active-context:{}", &hash.to_string()[..8]);
    env.mutate(["forget", "--id", &id, "--yes"]);
    env.mutate(["remember", "Prefers short answers", "--store", "core", "--section", "identity"]);
    env.mutate(["restore", &id]);
    let md = env.read("MEMORY.md");
    assert!(md.contains(&format!("blockers -->\n- {STORED}\n")), "{md}");
}

#[test]
fn dry_run_by_id_and_nothing_to_forget() {
    let env = setup();
    let out = env.run(["forget", "--id", "entity:person--alice", "--dry-run"]).output().success();
    assert!(out.stdout.contains("entity:person--alice"), "{out}");
    let out = env.run(["forget"]).output().code(1);
    assert!(out.stderr.starts_with("error: nothing to forget"), "{out}");
    let out = env.run(["forget", "nonexistent words", "--permanent", "--yes"]).output().code(1);
    assert!(out.stderr.starts_with("error: permanent deletion needs an exact `--id`"), "{out}");
}

/// A forgotten entity keeps its file but stays out of `memory/graph/index.md` (its edges too),
/// also when a later change regenerates the index; restoring it brings it back.
#[test]
fn a_forgotten_entity_stays_out_of_the_regenerated_graph_index() {
    let env = TestEnv::initialized();
    // A relation of the vocabulary: an unknown one is refused (issue 18).
    env.mutate([
        "remember",
        "Bob is sure of Ann",
        "--relation",
        "person--bob|confident-about|person--ann",
    ]);
    env.run(["forget", "entity:person--bob", "--yes"]).output().success();
    env.mutate(["remember", "Carol plays chess", "--entity", "person--carol"]);
    let index = env.read("memory/graph/index.md");
    assert!(!index.contains("person--bob"), "{index}");
    assert!(index.contains("person--ann") && index.contains("person--carol"), "{index}");
    assert!(env.path("memory/graph/entities/person--bob.md").exists(), "the file stays");
    env.run(["restore", "entity:person--bob"]).output().success();
    env.mutate(["remember", "Dan plays go", "--entity", "person--dan"]);
    let index = env.read("memory/graph/index.md");
    assert!(index.contains("| person--bob |"), "{index}");
    assert!(index.contains("| person--bob | confident-about | person--ann |"), "{index}");
}

// See: issue 20
/// Forgetting (and restoring, pinning, touching) a memory by its whole id reads its own file and
/// decay shard, not the workspace:
/// a malformed decay shard elsewhere (reported by `doctor`) does not stop it, and the change
/// touches only the memory's shard and the audit log (an episode forgotten is archived in its
/// decay entry; its day file keeps it). (Before, every memory file
/// and every shard were read: seconds at 100,000 memories, and any malformed shard failed it.)
#[test]
fn issue_20_forgetting_by_id_reads_only_what_it_forgets() {
    let env = TestEnv::initialized();
    env.import_messages(1010);
    let id = "episode:2026-11-03:10:07";
    let home = (0..64)
        .map(|n| format!("memory/meta/decay/{n:02x}.json"))
        .find(|rel| env.read(rel).contains(&format!("\"{id}\"")))
        .expect("the entry's shard");
    let other = (0..64)
        .map(|n| format!("memory/meta/decay/{n:02x}.json"))
        .find(|rel| *rel != home)
        .unwrap();
    env.write(&other, "{ \"entries\": not json");
    env.git_commit_all("a shard broken by hand");
    let out = env.run(["forget", "--id", id, "--yes"]).output().success();
    assert!(out.stderr.starts_with("forgot (commit "), "{out}");
    let changed = env.git(&["show", "--name-only", "--format=", "HEAD"]);
    let mut changed: Vec<&str> = changed.lines().collect();
    changed.sort_unstable();
    assert_eq!(changed, ["memory/meta/audit.log", home.as_str()], "{changed:?}");
    let entry: serde_json::Value = serde_json::from_str(&env.read(&home)).unwrap();
    assert_eq!(entry["entries"][id]["status"], "archived");
    // The broken shard is reported, not mended behind anyone's back.
    let out = env.run(["doctor"]).output().code(3);
    assert!(out.stdout.contains(&other), "{out}");
    // Restoring it by its whole id reads its shard alone too.
    env.run(["restore", id]).output().success();
    let entry: serde_json::Value = serde_json::from_str(&env.read(&home)).unwrap();
    assert_ne!(entry["entries"][id]["status"], "archived");
    assert!(entry["entries"][id].get("archive").is_none(), "{}", entry["entries"][id]);
    // Pinning and unpinning it, and recording a use, likewise.
    for verb in ["pin", "unpin", "touch"] {
        env.run([verb, id]).output().success();
    }
    let entry: serde_json::Value = serde_json::from_str(&env.read(&home)).unwrap();
    assert_eq!(entry["entries"][id]["pinned"], false);
    // Forgetting by the start of an id still looks at every memory (and so meets the shard).
    let out = env.run(["forget", "--id", "episode:2026-11-04:10:0", "--yes"]).output();
    assert_ne!(out.code, 0, "{out}");
}

/// A forget by words takes its candidates from the search index (issue 20: it read every file
/// holding one of its words, seconds for a common word at 100,000 memories), and answers as
/// the files would: a word found only in a unit's id (its file's name), a stem that is not the
/// word, a word only in a comment, an archived memory, a hand edit not yet indexed, and the
/// same candidates as the files give when a word sends the forget to them.
#[cfg(feature = "timings")] // reads which source the answer came from
#[test]
fn issue_20_a_forget_by_words_asks_the_index_and_answers_as_the_files_do() {
    let env = TestEnv::initialized();
    let id_of = |out: &crate::common::Output| -> String {
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        v["written"][0]["id"].as_str().unwrap().to_owned()
    };
    let first =
        id_of(&env.mutate(["remember", "--json", "The kiln in the garage needs a new element"]));
    // "kilns" shares the index's stem with "kiln", not the word: no candidate.
    let kilns = id_of(&env.mutate(["remember", "--json", "We fired three kilns last spring"]));
    let archived = id_of(&env.mutate(["remember", "--json", "The kiln temperature log is full"]));
    env.mutate(["forget", "--id", &archived, "--yes"]);
    // A procedure whose file name holds the word and whose text does not.
    env.write("memory/procedures/kiln-firing-steps.md", "# Firing steps\n\n1. Load the shelves.\n");
    // A word only in a comment is not a word of the memory.
    env.write(
        "memory/procedures/glazing.md",
        "# Glazing\n<!-- Type: procedure | kiln -->\n\n1. Dip twice.\n",
    );
    env.git_commit_all("two procedures written by hand");
    env.run(["search", "glaze"]).success(); // the index reads them
    // A hand edit the index has not seen yet.
    let file = format!("memory/episodes/{}.md", kilns.split(':').nth(1).unwrap());
    let day = env.read(&file);
    let edited = day.replace("We fired three kilns last spring", "We fired the kiln last spring");
    assert_ne!(day, edited, "{day}");
    env.write(&file, &edited);
    let mut episodes = [first.as_str(), kilns.as_str()];
    episodes.sort_unstable();
    let candidates = |query: &str| -> (Vec<(String, f64)>, bool) {
        let out = env
            .cmd(["forget", "--dry-run", "--json", query])
            .env("COGMEM_TIMINGS", "1")
            .output()
            .success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let found = v["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["id"].as_str().unwrap().to_owned(), c["score"].as_f64().unwrap()))
            .collect();
        (found, out.stderr.contains("forget: the index's memories holding the words"))
    };
    let (found, from_index) = candidates("kiln");
    assert!(from_index, "the index answered");
    let ids: Vec<&str> = found.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, [episodes[0], episodes[1], "procedure:kiln-firing-steps"], "{found:?}");
    // A long word with a `k` (a Kelvin sign lower-cases to one): the index cannot be sure to
    // hold it, so the files answer, with the same memories (each holding one of two words).
    let (by_files, from_index) = candidates("kiln thankfulnesses");
    assert!(!from_index, "the files answered");
    let halves: Vec<(String, f64)> = found.iter().map(|(id, _)| (id.clone(), 0.5)).collect();
    assert_eq!(by_files, halves);
}

/// The ids and texts of what `search QUERY --json` finds (as the suite shows command output,
/// hashes in ids normalised), one string each.
fn found(env: &TestEnv, query: &str) -> Vec<String> {
    let out = env.run(["search", query, "--json"]).output();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap_or_default();
    v.as_array()
        .map(|h| h.iter().map(|h| format!("{} {}", h["id"], h["text"])).collect())
        .unwrap_or_default()
}

/// Whether `search QUERY` finds a hit with `id` whose text holds `text`.
fn finds(env: &TestEnv, query: &str, id: &str, text: &str) -> bool {
    found(env, query).iter().any(|h| h.starts_with(&format!("\"{id}\"")) && h.contains(text))
}
/// Remembering a forgotten memory again brings it back (the audit of 2026-12-06 found it
/// written, reported remembered, and still hidden from search, recall and context, every later
/// fact about a forgotten entity with it; and `restore` then wrote the bullet a second time).
#[test]
fn remembering_a_forgotten_memory_again_brings_it_back() {
    let env = setup();
    // A core bullet: forgetting takes it out of MEMORY.md; remembering writes it back.
    let raw = core_id(&env);
    // As the suite shows command output: the hash in the id normalised.
    let id = crate::common::normalize(&raw, std::path::Path::new("/-"));
    env.mutate(["forget", "--id", &raw, "--yes"]);
    assert!(!finds(&env, "ship atlas", &id, "Friday"));
    let out = env.mutate(["remember", "Ship Atlas on Friday", "--store", "core", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["revived"], serde_json::json!([id]), "{out}");
    assert!(finds(&env, "ship atlas", &id, "Friday"), "{out}");
    assert_eq!(env.read("MEMORY.md").matches("Ship Atlas on Friday").count(), 1);
    let out = env.run(["restore", &raw]).output().code(1);
    assert!(out.stderr.contains("is not forgotten"), "{out}");
    let audit = env.audit_lines();
    assert!(audit.iter().any(|l| l.contains(&format!("brought back {raw}"))), "{audit:#?}");

    // An entity: a new fact about it brings it back, into the graph index too.
    env.mutate(["forget", "--id", "entity:person--alice", "--yes"]);
    assert!(!env.read("memory/graph/index.md").contains("person--alice"));
    let out = env.mutate(["remember", "Alice loves matcha", "--entity", "person--alice"]);
    assert!(
        out.stderr.contains("brought back (it had been forgotten): entity:person--alice"),
        "{out}"
    );
    assert!(finds(&env, "matcha", "entity:person--alice", "matcha"), "{out}");
    assert!(env.read("memory/graph/index.md").contains("person--alice"));

    // An episode keeps its line when forgotten: remembering the same text again is no
    // longer "already remembered" and hidden, but brought back, without a second line.
    let out = env.mutate(["remember", "the plumber comes at eight", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let episode = v["written"][0]["id"].as_str().unwrap().to_owned();
    let day_file = v["written"][0]["path"].as_str().unwrap().to_owned();
    env.mutate(["forget", "--id", &episode, "--yes"]);
    assert!(!finds(&env, "plumber", &episode, "plumber"));
    let out = env.mutate(["remember", "the plumber comes at eight", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["revived"], serde_json::json!([episode]), "{out}");
    assert_eq!(v["duplicates"], serde_json::json!([]), "{out}");
    assert!(finds(&env, "plumber", &episode, "plumber"), "{out}");
    let day = env.read(&day_file);
    assert_eq!(day.matches("the plumber comes at eight").count(), 1, "{day}");
    let verify = env.run(["verify"]).output().success();
    assert!(verify.stdout.contains("clean"), "{verify}");
}

/// A bullet edited away by hand and then back is found again after the second `sync` (its
/// entry had been archived by the first, and stayed so).
#[test]
fn a_bullet_edited_away_and_back_by_hand_is_found_again() {
    let env = setup();
    let id = crate::common::normalize(&core_id(&env), std::path::Path::new("/-"));
    let text = env.read("MEMORY.md");
    env.write("MEMORY.md", &text.replace("Ship Atlas on Friday", "Ship Atlas on Monday"));
    env.mutate(["sync"]);
    assert!(!finds(&env, "ship atlas", &id, "Friday"));
    env.write("MEMORY.md", &text);
    let out = env.mutate(["sync", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["decay_revived"], serde_json::json!([id]), "{out}");
    assert!(finds(&env, "ship atlas", &id, "Friday"), "{out}");
}

/// A forgotten entity is not named again by the cards of the entities that link to it, in the
/// session pack and in the prompt's pack (the audit of 2026-12-06 found `context Priya` showing
/// `employs: [[person--priya]]` on Acme's card and `colleague-of` on the user's).
#[test]
fn cards_leave_out_relations_to_a_forgotten_entity() {
    let env = TestEnv::initialized();
    env.mutate(["hear", "Remember that my colleague Priya works at Acme"]);
    env.mutate(["remember", "Acme makes rockets", "--entity", "organization--acme"]);
    let before = env.run(["context", "Acme"]).output().success();
    assert!(before.stdout.contains("employs: [[person--priya]]"), "{before}");
    env.mutate(["forget", "--id", "entity:person--priya", "--yes"]);
    for args in [vec!["context", "Priya"], vec!["context", "Acme"], vec!["context"]] {
        let out = env.run(&args).success();
        assert!(!out.stdout.to_lowercase().contains("priya"), "{args:?}: {out}");
    }
    let event = serde_json::json!({
        "hook_event_name": "UserPromptSubmit",
        "prompt": "what does Acme make?",
        "session_id": "s1",
        "cwd": env.root,
    });
    let out = env.run(["hook", "claude-code"]).stdin(event.to_string()).success();
    assert!(!out.stdout.to_lowercase().contains("priya"), "{out}");
    assert!(out.stdout.contains("Acme makes rockets"), "the prompt's pack shows Acme: {out}");
    // The graph commands show the files, links included, and say which entity was forgotten.
    let out = env.run(["graph", "neighbors", "organization--acme"]).output().success();
    assert!(out.stdout.contains("1  person--priya (person, active, forgotten)"), "{out}");
    let out = env.run(["graph", "neighbors", "organization--acme", "--json"]).output().success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let priya = v.as_array().unwrap().iter().find(|n| n["id"] == "person--priya").unwrap();
    assert_eq!(priya["forgotten"], true, "{out}");
}

/// After `forget --id entity:…`, `graph neighbors` said `forgotten` but `graph show`, `graph
/// history` and `graph path` showed the entity as current, in text and `--json`, and `graph
/// path` routed through it (the twelfth stop's list). Each now says which entity was forgotten,
/// and a path goes around a forgotten entity, as recall's activation does, naming it only when
/// it is an end the user asked for.
#[test]
fn graph_show_and_path_mark_a_forgotten_entity_and_no_path_goes_through_it() {
    let env = TestEnv::initialized();
    env.mutate(["hear", "Remember that my colleague Priya works at Acme"]);
    env.mutate(["forget", "--id", "entity:person--priya", "--yes"]);
    let out = env.run(["graph", "show", "organization--acme"]).success();
    assert!(out.stdout.contains("→ employs person--priya (forgotten) since "), "{out}");
    let out = env.run(["graph", "show", "person--priya"]).success();
    assert!(out.stdout.starts_with("person--priya (person, active, forgotten)  "), "{out}");
    for cmd in ["show", "history"] {
        let out = env.run(["graph", cmd, "person--priya", "--json"]).success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["forgotten"], true, "{out}");
        let out = env.run(["graph", cmd, "organization--acme", "--json"]).success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["forgotten"], false, "{out}");
        let priya = v["links"].as_array().unwrap().iter().find(|l| l["other"] == "person--priya");
        assert_eq!(priya.unwrap()["forgotten"], true, "{out}");
    }
    // An end the user names is shown, marked.
    let out = env.run(["graph", "path", "organization--acme", "person--priya"]).success();
    assert_eq!(out.stdout, "organization--acme — person--priya (forgotten)\n", "{out}");
    let out = env.run(["graph", "path", "organization--acme", "person--priya", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        v,
        serde_json::json!([
            {"id": "organization--acme", "forgotten": false},
            {"id": "person--priya", "forgotten": true}
        ]),
        "{out}"
    );
    // The user and Acme were linked only through Priya.
    let out = env.run(["graph", "path", "person--user", "organization--acme"]).success();
    assert_eq!(out.stdout, "", "{out}");
    assert!(out.stderr.contains("no path between them"), "{out}");
    env.mutate(["restore", "entity:person--priya"]);
    let out = env.run(["graph", "path", "person--user", "organization--acme"]).success();
    assert_eq!(out.stdout, "person--user — person--priya — organization--acme\n", "{out}");
}

/// Forgetting one fact of an entity had no command: `forget --id entity:…` archived the whole
/// entity. A fact (and a relation line) has an id of its own, `entity:TYPE--SLUG:facts:HASH8`,
/// listed by `forget QUERY`; forgetting it takes that line alone out of the card (and a
/// relation's row out of the graph index) in one commit, search and context stop showing it,
/// `restore` puts back the same bytes, and `--permanent` deletes it.
#[test]
fn one_fact_of_an_entity_is_forgotten_and_restored_by_its_id() {
    let env = TestEnv::initialized();
    let hostile = "Sam's badge code is 4711 | #door [[place--lab]] and ### not a heading";
    env.mutate(["remember", hostile, "--entity", "person--sam"]);
    env.mutate(["remember", "Sam plays the cello", "--entity", "person--sam"]);
    env.mutate([
        "remember",
        "Sam works on Atlas",
        "--relation",
        "person--sam|works-on|project--atlas",
    ]);
    let long = format!("Sam collects {}", "very rare stamps ".repeat(300));
    env.mutate(["remember", &long, "--entity", "person--sam"]);
    let card = "memory/graph/entities/person--sam.md";
    let (before, index_before) = (env.read(card), env.read("memory/graph/index.md"));

    let id = env.bullet_id("person--sam", "4711");
    assert!(id.starts_with("entity:person--sam:facts:") && id.len() == 33, "{id}");
    // The listing gives the fact with its line, ahead of the entity.
    let shown = "entity:person--sam:facts:[HASH]";
    let out = env.run(["forget", "badge code 4711"]).output().success();
    assert!(out.stdout.starts_with(&format!(" 1. {shown}  {card}:9\n")), "{out}");
    assert!(
        out.stderr.contains(&format!("confirm with `cogmem forget --id {shown} --yes`")),
        "{out}"
    );

    env.mutate(["forget", "--id", &id[..30], "--yes"]);
    let after = env.read(card);
    assert!(!after.contains("4711") && after.contains("cello") && after.contains("stamps"));
    assert!(after.contains("works-on: [[project--atlas]]"), "{after}");
    assert_eq!(after.lines().count() + 1, before.lines().count(), "{after}");
    env.wait_for_index();
    let out = env.run(["search", "badge 4711"]).output().success();
    assert!(!out.stdout.contains("4711"), "{out}");
    let out = env.run(["context", "Sam badge code"]).output().success();
    assert!(!out.stdout.contains("4711") && out.stdout.contains("cello"), "{out}");
    assert!(!env.run(["forget", "--json", "badge 4711"]).success().stdout.contains(":facts:"));
    let out = env.run(["forget", "--id", &id, "--yes"]).output().success();
    assert!(out.stderr.contains(&format!("already forgotten: {shown}")), "{out}");

    env.mutate(["restore", &id]);
    assert_eq!(env.read(card), before);
    // A relation line: its edge row leaves the graph index with it, and comes back with it.
    let rel = env.bullet_id("person--sam", "works-on");
    assert!(rel.starts_with("entity:person--sam:relations:"), "{rel}");
    env.mutate(["forget", "--id", &rel, "--yes"]);
    assert!(!env.read(card).contains("works-on"));
    assert!(!env.read("memory/graph/index.md").contains("| person--sam | works-on |"));
    env.mutate(["restore", &rel]);
    assert_eq!(env.read(card), before);
    assert_eq!(env.read("memory/graph/index.md"), index_before);

    // `--permanent` needs the whole id and keeps no entry to restore.
    let out = env.run(["forget", "--id", &id[..30], "--permanent", "--yes"]).output().code(1);
    assert!(out.stderr.contains("no memory has the id"), "{out}");
    env.mutate(["forget", "--id", &id, "--permanent", "--yes"]);
    assert!(!env.read(card).contains("4711"));
    let out = env.run(["restore", &id]).output().code(1);
    assert!(out.stderr.contains(shown), "{out}");
    // A hostile id is no id.
    for bad in ["entity:person--sam:facts:../../x", "entity:person--sam:facts:", "entity:a:b:c"] {
        env.run(["forget", "--id", bad, "--yes"]).output().code(1);
    }
    env.assert_clean_tree();
}
