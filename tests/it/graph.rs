//! The knowledge graph on real entity files: functional history, truth maintenance, merge,
//! check findings, and search leaving superseded entities out.

use crate::common::TestEnv;

fn rel(env: &TestEnv, text: &str, relation: &str) {
    env.mutate(["remember", text, "--relation", relation]);
}

#[test]
fn functional_relations_keep_their_history() {
    let env = TestEnv::initialized();
    env.set_now("2027-01-01T09:00:00Z");
    rel(&env, "Alice lives in Lisbon", "person--alice|lives-in|place--lisbon");
    env.set_now("2027-03-01T09:00:00Z");
    rel(&env, "Alice moved to Porto", "person--alice|lives-in|place--porto");
    let alice = env.read("memory/graph/entities/person--alice.md");
    assert!(
        alice.contains("- lives-in: [[place--lisbon]] (since 2027-01-01) (until 2027-03-01)\n"),
        "{alice}"
    );
    assert!(alice.contains("- lives-in: [[place--porto]] (since 2027-03-01)\n"), "{alice}");
    let now = env.run(["graph", "show", "alice", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&now.stdout).unwrap();
    let lives: Vec<&str> = v["links"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["relation"] == "lives-in")
        .map(|l| l["other"].as_str().unwrap())
        .collect();
    assert_eq!(lives, ["place--porto"]);
    let then = env.run(["graph", "show", "alice", "--as-of", "2027-02-01", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&then.stdout).unwrap();
    let lives: Vec<&str> = v["links"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["relation"] == "lives-in")
        .map(|l| l["other"].as_str().unwrap())
        .collect();
    assert_eq!(lives, ["place--lisbon"]);
    let history = env.run(["graph", "history", "person--alice"]).success();
    assert!(
        history
            .stdout
            .contains("→ lives-in place--lisbon since 2027-01-01 until 2027-03-01 (closed)"),
        "{history}"
    );
    // The inverse was written on the place.
    assert!(
        env.read("memory/graph/entities/place--porto.md")
            .contains("- home-of: [[person--alice]] (since 2027-03-01)")
    );
}

#[test]
fn supersede_deactivates_dependents_recursively_with_a_trace() {
    let env = TestEnv::initialized();
    rel(&env, "Atlas depends on Postgres 14", "project--atlas|depends-on|tool--postgres-14");
    rel(&env, "The Atlas report refines Atlas", "concept--atlas-report|refines|project--atlas");
    rel(&env, "Bob works on Atlas", "person--bob|works-on|project--atlas");
    env.mutate(["remember", "Postgres 17 is the new database", "--entity", "tool--postgres-17"]);
    let out = env.mutate([
        "supersede",
        "tool--postgres-14",
        "--by",
        "tool--postgres-17",
        "--reason",
        "upgraded",
    ]);
    assert_eq!(
        out.stderr,
        "committed [HASH]\n  tool--postgres-14: superseded by tool--postgres-17\n  project--atlas: inactive (depends-on tool--postgres-14)\n  concept--atlas-report: inactive (refines project--atlas)\n"
    );
    assert!(
        env.read("memory/graph/entities/tool--postgres-14.md").contains("| Status: superseded -->")
    );
    assert!(
        env.read("memory/graph/entities/tool--postgres-14.md")
            .contains("- superseded-by: [[tool--postgres-17]]")
    );
    assert!(
        env.read("memory/graph/entities/tool--postgres-17.md")
            .contains("- supersedes: [[tool--postgres-14]]")
    );
    let atlas = env.read("memory/graph/entities/project--atlas.md");
    assert!(
        atlas.contains("| Status: inactive -->")
            && atlas.contains("inactive — depends-on [[tool--postgres-14]]"),
        "{atlas}"
    );
    assert!(
        !env.read("memory/graph/entities/person--bob.md").contains("Status:"),
        "works-on does not propagate"
    );
    let audit = env.audit_lines();
    assert!(audit.iter().any(|l| l.contains("| EDIT | memory/graph/entities/concept--atlas-report.md | test-agent | auto | inactive: refines project--atlas")), "{audit:#?}");
    // Search leaves superseded and inactive entities out; recall's graph activation does not
    // flow through them.
    let out = env.run(["search", "--json", "postgres"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let ids: Vec<&str> = v.as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert!(
        !ids.contains(&"entity:tool--postgres-14") && !ids.contains(&"entity:project--atlas"),
        "{ids:?}"
    );
    assert!(ids.contains(&"entity:tool--postgres-17"), "{ids:?}");
    let out = env.run(["show", "entity:tool--postgres-14"]).success();
    assert!(out.stdout.contains("superseded"), "still shown by id: {out}");
}

#[test]
fn merge_moves_facts_and_rewires_links() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Robert likes chess", "--entity", "person--robert"]);
    env.mutate(["remember", "Bob plays guitar", "--entity", "person--bob"]);
    rel(&env, "Alice knows Bob", "person--alice|relates-to|person--bob");
    let out = env.mutate(["graph", "merge", "person--robert", "person--bob"]);
    assert!(out.stderr.contains("person--bob: merged into person--robert"), "{out}");
    let robert = env.read("memory/graph/entities/person--robert.md");
    assert!(robert.contains("- Robert likes chess\n- Bob plays guitar\n"), "{robert}");
    assert!(robert.contains("Aliases: bob"), "{robert}");
    assert!(robert.contains("- relates-to: [[person--alice]]"), "{robert}");
    assert!(
        env.read("memory/graph/entities/person--alice.md")
            .contains("- relates-to: [[person--robert]]")
    );
    let bob = env.read("memory/graph/entities/person--bob.md");
    assert!(
        bob.contains("Status: merged") && bob.contains("Merged into [[person--robert]]"),
        "{bob}"
    );
    let out = env.run(["graph", "show", "bob", "--json"]).success();
    assert!(
        out.stdout.contains("\"id\": \"person--robert\""),
        "the alias resolves to the kept entity: {out}"
    );
}

#[test]
fn check_reports_problems_with_path_and_line() {
    let env = TestEnv::initialized();
    rel(&env, "a", "project--a|depends-on|project--b");
    rel(&env, "b", "project--b|depends-on|project--a");
    rel(&env, "d", "project--a|lives-in|place--x");
    // Only a hand edit can write a relation the vocabulary lacks (issue 18).
    let a = env.read("memory/graph/entities/project--a.md");
    env.write(
        "memory/graph/entities/project--a.md",
        &format!("{a}- frobnicates: [[project--b]]\n"),
    );
    env.write("memory/graph/entities/project--a-.md", "# project--a-\n");
    env.write(
        "memory/graph/entities/concept--z.md",
        "# concept--z\n\n## Relations\n- relates-to: [[concept--missing]]\n",
    );
    env.git_commit_all("hand-made entities");
    let out = env.run(["graph", "check"]).output().code(3);
    let s = &out.stdout;
    assert!(
        s.contains("memory/graph/entities/project--a.md:")
            && s.contains("unknown-relation: `frobnicates` is not in memory/graph/relations.md"),
        "{out}"
    );
    assert!(
        s.contains("endpoint-type: `lives-in` goes from person, not project (project--a)"),
        "{out}"
    );
    assert!(s.contains("cycle: `depends-on` must not loop"), "{out}");
    assert!(s.contains("memory/graph/entities/concept--z.md:4: dangling: `relates-to` links to concept--missing, which has no file"), "{out}");
    let out = env.run(["graph", "export", "--mermaid"]).success();
    assert!(out.stdout.starts_with("graph LR\n"), "{out}");
    assert!(out.stdout.contains("project__a -->|depends-on| project__b"), "{out}");
    let out = env.run(["graph", "stats", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["dangling"], 1);
}

#[test]
fn neighbors_and_path() {
    let env = TestEnv::initialized();
    rel(&env, "Alice works on Atlas", "person--alice|works-on|project--atlas");
    rel(&env, "Atlas uses Postgres", "project--atlas|uses|tool--postgres");
    let out = env.run(["graph", "neighbors", "alice", "--depth", "2"]).success();
    assert_eq!(
        out.stdout,
        "1  project--atlas (project, active)\n2  tool--postgres (tool, active)\n"
    );
    let out = env.run(["graph", "path", "alice", "postgres"]).success();
    assert_eq!(out.stdout, "person--alice — project--atlas — tool--postgres\n");
    let out = env.run(["graph", "show", "nobody"]).output().code(1);
    assert!(
        out.stderr.starts_with("error: no entity has the id, name or alias \"nobody\""),
        "{out}"
    );
}

#[test]
fn search_lifts_hits_connected_to_the_best_ones_but_not_the_best_ones_themselves() {
    let env = TestEnv::initialized();
    rel(&env, "Bob works on Atlas", "person--bob|works-on|project--atlas");
    for i in 0..5 {
        env.mutate([
            "remember",
            "--store",
            "episodic",
            &format!("[[project--atlas]] launch review {i}: the launch checklist and launch date"),
        ]);
    }
    // Two memories that match the query equally; one is about a person connected to Atlas.
    env.mutate(["remember", "--store", "episodic", "Notes on the launch by [[person--bob]]"]);
    env.mutate(["remember", "--store", "episodic", "Notes on the launch by [[place--kitchen]]"]);
    let out = env.run(["search", "launch", "--json", "--limit", "20"]).success();
    let hits: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).unwrap();
    let pos = |needle: &str| {
        hits.iter()
            .position(|h| h["text"].as_str().unwrap_or_default().contains(needle))
            .unwrap_or_else(|| panic!("{needle} not found in {hits:#?}"))
    };
    let (bob, kitchen) = (pos("by [[person--bob]]"), pos("by [[place--kitchen]]"));
    assert!(hits[bob]["activation"].as_f64().unwrap() > 0.0, "{:#}", hits[bob]);
    assert_eq!(hits[kitchen]["activation"].as_f64().unwrap_or(0.0), 0.0, "{:#}", hits[kitchen]);
    assert!(bob < kitchen, "the connected memory ranks higher: {hits:#?}");
    // The seeding hits keep their text scores, and no boosted hit rises above them.
    for h in &hits[..5] {
        assert!(h["text"].as_str().unwrap().contains("launch review"), "{h:#}");
        assert_eq!(h["activation"].as_f64().unwrap_or(0.0), 0.0, "{h:#}");
    }
    let fifth = hits[4]["score"].as_f64().unwrap();
    assert!(hits[5..].iter().all(|h| h["score"].as_f64().unwrap() < fifth), "{hits:#?}");
}

#[test]
fn a_boosted_hit_stays_below_the_hits_that_seed_it() {
    let env = TestEnv::initialized();
    rel(&env, "Bob works on Atlas", "person--bob|works-on|project--atlas");
    for i in 0..5 {
        env.mutate([
            "remember",
            "--store",
            "episodic",
            &format!("[[project--atlas]] launch review {i}: the launch checklist"),
        ]);
    }
    // Just below the seeds: the boost (× 1.5 for a seed's own entity) would lift it above them.
    env.mutate([
        "remember",
        "--store",
        "episodic",
        "The launch checklist, launch review notes [[project--atlas]] kept",
    ]);
    let out = env.run(["search", "launch", "--json", "--limit", "10"]).success();
    let hits: Vec<serde_json::Value> = serde_json::from_str(&out.stdout).unwrap();
    let last = &hits[5];
    assert!(last["text"].as_str().unwrap().contains("notes"), "{hits:#?}");
    assert_eq!(last["activation"].as_f64(), Some(1.0), "{last:#}");
    assert!(last["score"].as_f64().unwrap() < hits[4]["score"].as_f64().unwrap(), "{hits:#?}");
}

#[test]
fn search_activation_setting_switches_the_graph_boost_off() {
    let env = TestEnv::initialized();
    rel(&env, "Bob works on Atlas", "person--bob|works-on|project--atlas");
    for i in 0..5 {
        env.mutate([
            "remember",
            "--store",
            "episodic",
            &format!("[[project--atlas]] launch review {i}: the launch checklist and launch date"),
        ]);
    }
    // The kitchen note matches the query a little better; Bob's is connected to Atlas.
    env.mutate(["remember", "--store", "episodic", "Notes on the launch by [[person--bob]]"]);
    env.mutate([
        "remember",
        "--store",
        "episodic",
        "Launch notes, the launch by [[place--kitchen]] staff and cooks",
    ]);
    let order = |env: &TestEnv, cmd: &str| -> (usize, usize, f64) {
        let out = env.run([cmd, "launch", "--json", "--limit", "20"]).success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        // `recall --json` groups the hits by store.
        let hits: Vec<serde_json::Value> = if cmd == "recall" {
            let groups =
                v.as_array().cloned().unwrap_or_else(|| v["groups"].as_array().unwrap().clone());
            groups.iter().flat_map(|g| g["hits"].as_array().unwrap().clone()).collect()
        } else {
            v.as_array().unwrap().clone()
        };
        let pos = |needle: &str| {
            hits.iter()
                .position(|h| h["text"].as_str().unwrap_or_default().contains(needle))
                .unwrap_or_else(|| panic!("{needle} not found in {hits:#?}"))
        };
        let bob = pos("by [[person--bob]]");
        (bob, pos("by [[place--kitchen]]"), hits[bob]["activation"].as_f64().unwrap_or(0.0))
    };
    // Default (no setting): activation on, the connected note first.
    let (bob, kitchen, a) = order(&env, "search");
    assert!(a > 0.0 && bob < kitchen, "{bob} {kitchen} {a}");
    env.write("cogmem.toml", "[search]\nactivation = true\n");
    assert_eq!(order(&env, "search"), (bob, kitchen, a), "true is the default");
    // Off: text score alone, for search and recall alike.
    env.write("cogmem.toml", "[search]\nactivation = false\n");
    let (bob, kitchen, a) = order(&env, "search");
    assert!(a == 0.0 && kitchen < bob, "{bob} {kitchen} {a}");
    let (bob, kitchen, a) = order(&env, "recall");
    assert!(a == 0.0 && kitchen < bob, "{bob} {kitchen} {a}");
}

#[test]
fn closing_a_functional_relation_closes_its_back_link_in_the_same_commit() {
    let env = TestEnv::initialized();
    env.set_now("2027-01-01T09:00:00Z");
    rel(&env, "Alice lives in Porto", "person--alice|lives-in|place--porto");
    env.set_now("2027-03-01T09:00:00Z");
    rel(&env, "Alice moved to Lisbon", "person--alice|lives-in|place--lisbon");
    let porto = env.read("memory/graph/entities/place--porto.md");
    assert!(
        porto.contains("- home-of: [[person--alice]] (since 2027-01-01) (until 2027-03-01)\n"),
        "{porto}"
    );
    let changed = env.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]);
    assert!(changed.contains("memory/graph/entities/place--porto.md"), "{changed}");
    let out = env.run(["graph", "show", "person--alice"]).success();
    assert!(!out.stdout.contains("place--porto"), "{out}");
    assert!(out.stdout.contains("place--lisbon"), "{out}");
    let out = env.run(["graph", "neighbors", "person--alice"]).success();
    assert_eq!(out.stdout, "1  place--lisbon (place, active)\n");
    // The past still shows Porto.
    let out = env.run(["graph", "neighbors", "person--alice", "--as-of", "2027-02-01"]).success();
    assert!(out.stdout.contains("place--porto"), "{out}");
}

#[test]
fn merged_redirects_are_left_out_of_export_and_stats() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Robert likes chess", "--entity", "person--robert"]);
    env.mutate(["remember", "Bob plays guitar", "--entity", "person--bob"]);
    rel(&env, "Alice knows Bob", "person--alice|relates-to|person--bob");
    env.mutate(["graph", "merge", "person--robert", "person--bob"]);
    let out = env.run(["graph", "export", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let ids: Vec<&str> =
        v["nodes"].as_array().unwrap().iter().map(|n| n["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(!ids.contains(&"person--bob"), "{ids:?}");
    let out = env.run(["graph", "export", "--mermaid"]).success();
    assert!(!out.stdout.contains("person__bob"), "{out}");
    let out = env.run(["graph", "stats", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((v["nodes"].as_u64(), v["merged"].as_u64()), (Some(2), Some(1)), "{v:#}");
    assert_eq!(v["components"], 1, "{v:#}");
    let out = env.run(["graph", "stats"]).success();
    assert!(out.stdout.starts_with("entities    2\n"), "{out}");
}

#[test]
fn supersede_names_a_missing_entity_and_refuses_itself() {
    let env = TestEnv::initialized();
    rel(&env, "Atlas uses MySQL", "project--atlas|uses|tool--mysql");
    let head = env.head();
    let out = env.run(["supersede", "tool--mysql", "--by", "tool--postgres"]).output().code(1);
    assert!(
        out.stderr.starts_with("error: there is no entity tool--postgres yet"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("cogmem remember --entity tool--postgres"), "{}", out.stderr);
    let out = env.run(["supersede", "tool--mysql", "--by", "tool--mysql"]).output().code(1);
    assert!(
        out.stderr.starts_with("error: cannot supersede tool--mysql with itself"),
        "{}",
        out.stderr
    );
    assert_eq!(env.head(), head, "nothing was committed");
}

/// A relation `remember --relation` writes in both files (`works-on` in the person's,
/// `worked-on-by` in the project's) is one relation: `graph show` lists it once from each side,
/// in the words of that side's own file.
#[test]
fn show_lists_a_relation_and_its_inverse_twin_once() {
    let env = TestEnv::initialized();
    rel(&env, "Alice works on Atlas", "person--alice|works-on|project--atlas");
    rel(&env, "Alice and Bob are colleagues", "person--alice|colleague-of|person--bob");
    let links = |id: &str| -> Vec<(String, String, String)> {
        let out = env.run(["graph", "show", id, "--json"]).success();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        v["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let s = |k: &str| l[k].as_str().unwrap().to_owned();
                (s("relation"), s("direction"), s("other"))
            })
            .collect()
    };
    let alice = links("person--alice");
    assert_eq!(alice.len(), 2, "{alice:?}");
    assert!(alice.contains(&("works-on".into(), "out".into(), "project--atlas".into())));
    assert!(alice.contains(&("colleague-of".into(), "out".into(), "person--bob".into())));
    assert_eq!(
        links("project--atlas"),
        [("worked-on-by".to_owned(), "out".to_owned(), "person--alice".to_owned())]
    );
    // A bullet whose twin is missing (written by hand in one file only) still shows, incoming.
    let rel_path = "memory/graph/entities/person--bob.md";
    let text: String = env
        .read(rel_path)
        .lines()
        .filter(|l| !l.contains("[[person--alice]]"))
        .map(|l| format!("{l}\n"))
        .collect();
    env.write(rel_path, &text);
    env.git_commit_all("bob forgets alice");
    assert_eq!(
        links("person--bob"),
        [("colleague-of".to_owned(), "in".to_owned(), "person--alice".to_owned())]
    );
}

/// The entity files of `env`'s folder by type, counted from their names.
fn entity_files_of(env: &TestEnv, kind: &str) -> usize {
    std::fs::read_dir(env.path("memory/graph/entities"))
        .unwrap()
        .filter(|e| {
            let name = e.as_ref().unwrap().file_name().into_string().unwrap();
            name.starts_with(&format!("{kind}--")) && name.ends_with(".md")
        })
        .count()
}

// See: issue 20
/// Past 1,000 entity files `memory/graph/index.md` counts them by type instead of listing every
/// entity and relation: a `remember` that names someone new then changes one line of it instead
/// of rewriting a table of every entity (5 MB at 10,000 entities); `doctor` checks the counts
/// against the folder, `graph rebuild` mends them, and forgetting and restoring an entity leave
/// the counts alone (its file stays).
#[test]
fn issue_20_past_1000_entity_files_the_graph_index_counts_them_by_type() {
    let env = TestEnv::initialized();
    for i in 0..999 {
        env.write(&format!("memory/graph/entities/person--p{i:04}.md"), &format!("# P{i:04}\n"));
    }
    env.write("memory/graph/entities/place--lisbon.md", "# Lisbon\n");
    env.git_commit_all("a thousand entities, by hand");
    env.run(["graph", "rebuild"]).success();
    let index = env.read("memory/graph/index.md");
    assert!(index.contains("## Entity Registry"), "1,000 files are still listed");
    assert!(index.contains("| person--p0998 | person | p0998 |"), "{}", &index[..400]);
    // The 1,001st: the table becomes the counts.
    env.mutate(["remember", "Had lunch with Quentin Zabrowski in Lisbon"]);
    let persons = entity_files_of(&env, "person");
    assert!(persons >= 1000, "{persons}");
    let index = env.read("memory/graph/index.md");
    assert!(!index.contains("## Entity Registry") && !index.contains("person--p0"), "{index}");
    assert!(index.contains("## Entities by Type"), "{index}");
    assert!(index.contains(&format!("| person | {persons} |\n")), "{index}");
    assert!(index.contains("| place | 1 |\n"), "{index}");
    env.run(["doctor"]).output().success();
    // The next new entity changes one row.
    env.mutate(["remember", "Bartholomew Xenakis reviewed the audit"]);
    let more = entity_files_of(&env, "person");
    assert!(more > persons, "{more}");
    let diff = env.git(&["show", "--format=", "--numstat", "HEAD", "--", "memory/graph/index.md"]);
    assert_eq!(diff.trim_end(), "1\t1\tmemory/graph/index.md", "{diff}");
    assert!(env.read("memory/graph/index.md").contains(&format!("| person | {more} |\n")));
    // A file committed outside cogmem: doctor names the stale count, rebuild mends it.
    env.write("memory/graph/entities/project--atlas.md", "# Atlas\n");
    env.git_commit_all("atlas, by hand");
    let out = env.run(["doctor"]).output().code(3);
    assert!(out.stdout.contains("counts 0 project entity files where the folder has 1"), "{out}");
    env.run(["graph", "rebuild"]).success();
    assert!(env.read("memory/graph/index.md").contains("| project | 1 |\n"));
    env.run(["doctor"]).output().success();
    // Forget and restore: the entity's file stays, so does its count.
    let before = env.read("memory/graph/index.md");
    env.mutate(["forget", "--id", "entity:person--p0005", "--yes"]);
    assert_eq!(env.read("memory/graph/index.md"), before);
    env.mutate(["restore", "entity:person--p0005"]);
    assert_eq!(env.read("memory/graph/index.md"), before);
    env.run(["doctor"]).output().success();
    // A permanent forget deletes the file: one fewer.
    env.run(["forget", "--id", "entity:person--p0006", "--permanent", "--yes"]).success();
    assert!(!env.path("memory/graph/entities/person--p0006.md").exists());
    let index = env.read("memory/graph/index.md");
    assert!(index.contains(&format!("| person | {} |\n", more - 1)), "{index}");
    env.run(["doctor"]).output().success();
}

/// `graph show`/`graph history` (and one hop of `graph neighbors`) of an entity file's id parse
/// only the entity files that can hold its edges (issue 20: every entity file, twice for the
/// web view's page), and answer as the whole graph does: asked by name, the same entity comes
/// from the whole graph.
#[test]
fn issue_20_an_entitys_relations_come_from_the_files_around_it_as_from_the_whole_graph() {
    let env = TestEnv::initialized();
    let entity = |id: &str, title: &str, relations: &[&str]| {
        write_entity(&env, id, title, "active", relations);
    };
    entity(
        "person--ann-lee",
        "Ann Lee",
        &[
            "works-on: [[project--atlas]] (since 2026-01-01)",
            "knows: [[person--bo]] (since 2025-01-01) (until 2025-06-01)",
            "lives-in: [[place--nowhere]]",
        ],
    );
    // Its inverse twin, an incoming edge, an alias link, a closed incoming edge.
    entity("project--atlas", "Atlas", &["worked-on-by: [[person--ann-lee]] (since 2026-01-01)"]);
    entity("person--bo", "Bo", &["mentors: [[ person--ann-lee | Ann ]] (since 2026-02-01)"]);
    entity(
        "organization--acme",
        "Acme",
        &["employs: [[person--ann-lee]] (since 2024-01-01) (until 2025-01-01)"],
    );
    // Names the entity in its text, not as a relation; and one that has nothing to do with it.
    env.write(
        "memory/graph/entities/concept--tea.md",
        "# Tea\n\nperson--ann-lee likes it.\n\n## Relations\n\n- liked-by: [[person--bo]]\n",
    );
    entity("place--lisbon", "Lisbon", &["near: [[place--porto]]"]);
    entity("place--porto", "Porto", &[]);
    env.git_commit_all("entities by hand");
    for verb in ["show", "history"] {
        let by_id = env.run(["graph", verb, "person--ann-lee", "--json"]).success().stdout;
        let by_name = env.run(["graph", verb, "Ann Lee", "--json"]).success().stdout;
        assert_eq!(by_id, by_name, "{verb}");
        for other in ["project--atlas", "person--bo", "organization--acme"] {
            assert!(
                verb == "show" && other == "organization--acme" || by_id.contains(other),
                "{verb}: {by_id}"
            );
        }
        assert!(!by_id.contains("place--porto") && !by_id.contains("concept--tea"), "{by_id}");
    }
    // One hop of neighbours likewise (at any date); two hops build the whole graph.
    for args in [&[][..], &["--as-of", "2025-03-01"][..]] {
        let hop = |who: &str| {
            let mut cmd = vec!["graph", "neighbors", who, "--json"];
            cmd.extend_from_slice(args);
            env.run(cmd).success().stdout
        };
        assert_eq!(hop("person--ann-lee"), hop("Ann Lee"), "{args:?}");
        assert!(hop("person--ann-lee").contains("person--bo"), "{args:?}");
    }
    let page = |env: &TestEnv, id: &str| env.run(["graph", "show", id, "--json"]).success().stdout;
    assert_eq!(page(&env, "person--bo"), page(&env, "Bo"));
    assert_eq!(page(&env, "place--lisbon"), page(&env, "Lisbon"));
}

/// After changes to a few entity files, the graph cache and the names the index keeps are the
/// ones a rebuild from every entity file gives, though the refresh parsed only the changed
/// files (issue 20: it read and parsed all of them, a third of a second at 10,000 entities,
/// which a search right after a remember naming someone new waited for): a new entity a
/// dangling link waited for, a relation added by `remember`, a relation closed, a status and a
/// name changed by hand, an entity deleted by hand, one no longer readable; and the facts kept
/// are not trusted once the graph cache was written by anything else.
#[test]
fn issue_20_the_graph_caches_follow_a_few_changed_entity_files_as_a_rebuild_does() {
    let env = TestEnv::initialized();
    let entity = |id: &str, title: &str, status: &str, relations: &[&str]| {
        write_entity(&env, id, title, status, relations);
    };
    entity(
        "person--ann",
        "Ann",
        "active",
        &["knows: [[person--zed]]", "works-on: [[project--atlas]]"],
    );
    entity("project--atlas", "Atlas", "active", &["owned-by: [[organization--acme]]"]);
    entity("organization--acme", "Acme", "active", &[]);
    entity("person--bo", "Bo", "active", &["knows: [[person--ann]] (confidence 0.7)"]);
    env.git_commit_all("entities by hand");
    let caches = |env: &TestEnv| {
        // A search refreshes the index (no match: exit 1; it warns of the unreadable file: 3).
        let out = env.run(["search", "anything"]).output();
        assert!([0, 1, 3].contains(&out.code), "{out}");
        env.wait_for_index();
        graph_set(env)
    };
    let rebuilt = |env: &TestEnv| {
        let out = env.run(["reindex", "--full"]).output();
        assert!([0, 3].contains(&out.code), "{out}");
        graph_set(env)
    };
    caches(&env);
    assert!(env.path(".cogmem/index/graph/00.facts").is_file(), "the facts are kept");
    type Step = Box<dyn Fn(&TestEnv)>;
    let steps: Vec<(&str, Step)> = vec![
        (
            "the entity a dangling link waited for",
            Box::new(|env| {
                env.write("memory/graph/entities/person--zed.md", "# Zed\n\n## Relations\n\n");
            }),
        ),
        (
            "a relation remembered",
            Box::new(|env| {
                env.run([
                    "remember",
                    "Zed works on Atlas",
                    "--relation",
                    "person--zed|works-on|project--atlas",
                ])
                .success();
            }),
        ),
        (
            "a relation closed, a status and a name changed",
            Box::new(|env| {
                let ann = env.read("memory/graph/entities/person--ann.md");
                env.write(
                    "memory/graph/entities/person--ann.md",
                    &ann.replace("# Ann", "# Annabel").replace(
                        "works-on: [[project--atlas]]",
                        "works-on: [[project--atlas]] (until 2026-02-01)",
                    ),
                );
                let bo = env.read("memory/graph/entities/person--bo.md");
                env.write(
                    "memory/graph/entities/person--bo.md",
                    &bo.replace("Status: active", "Status: inactive"),
                );
            }),
        ),
        (
            "an entity deleted by hand",
            Box::new(|env| {
                std::fs::remove_file(env.path("memory/graph/entities/organization--acme.md"))
                    .unwrap();
            }),
        ),
        (
            "an entity no longer readable",
            Box::new(|env| {
                std::fs::write(
                    env.path("memory/graph/entities/person--bo.md"),
                    b"# Bo\n\xff\xfe\n",
                )
                .unwrap();
            }),
        ),
    ];
    for (what, step) in &steps {
        step(&env);
        if !env.git_status().trim().is_empty() {
            env.git_commit_all(what);
        }
        let incremental = caches(&env);
        assert_eq!(incremental, rebuilt(&env), "{what}");
    }
    // A graph cache written by something else (a cogmem that keeps no facts): the facts kept are
    // not used, even when they are wrong.
    let facts = env.read(".cogmem/index/graph/00.facts");
    let wrong: String =
        facts.lines().filter(|l| !l.contains("person--zed")).map(|l| format!("{l}\n")).collect();
    assert_ne!(wrong, facts);
    env.write(".cogmem/index/graph/00.facts", &wrong);
    let graph = env.read(".cogmem/index/graph/00.tsv");
    env.write(".cogmem/index/graph/00.tsv", &format!("{graph}\n"));
    entity("person--cy", "Cy", "active", &["knows: [[person--zed]]"]);
    let incremental = caches(&env);
    assert!(incremental[0].contains("person--zed\t"), "{}", incremental[0]);
    assert_eq!(incremental, rebuilt(&env));
}

/// A refresh killed while it writes the graph's shards (a shard's graph cache written, its facts
/// and the set's `shards` file not): the next refresh does not trust the set, writes it again,
/// and it comes out as a rebuild's.
#[cfg(feature = "crash-points")]
#[test]
fn a_refresh_killed_while_writing_the_graph_shards_leaves_the_next_one_right() {
    let env = TestEnv::initialized();
    write_entity(&env, "person--ann", "Ann", "active", &["knows: [[person--bo]]"]);
    write_entity(&env, "person--bo", "Bo", "active", &[]);
    env.git_commit_all("entities by hand");
    let search = |env: &TestEnv| {
        let out = env.run(["search", "anything"]).output();
        assert!([0, 1].contains(&out.code), "{out}");
    };
    search(&env);
    let rels = ["knows: [[person--bo]]", "works-on: [[project--atlas]]"];
    write_entity(&env, "person--ann", "Ann", "active", &rels);
    write_entity(&env, "project--atlas", "Atlas", "active", &[]);
    env.git_commit_all("a relation and an entity by hand");
    let out = env.run(["search", "anything"]).env("COGMEM_CRASH_AT", "index-graph-shard").output();
    assert!(![0, 1].contains(&out.code), "the refresh was not killed: {out}");
    assert!(!env.path(".cogmem/index/graph/shards").exists(), "a set cut short is not trusted");
    search(&env);
    env.wait_for_index();
    let after = graph_set(&env);
    assert!(after[0].contains("person--ann 1"), "{}", after[0]);
    env.run(["reindex", "--full"]).success();
    assert_eq!(after, graph_set(&env));
}

/// The graph caches of a workspace small enough for one shard: the graph cache, the names, the
/// dangling relations and the set's `shards` file.
fn graph_set(env: &TestEnv) -> [String; 4] {
    ["00.tsv", "00.names", "dangling.tsv", "shards"]
        .map(|f| env.read(&format!(".cogmem/index/graph/{f}")))
}

/// A change to a few entities (a new entity, with or without relations; a relation added,
/// closed or pointed elsewhere; a name or a status changed; what a `remember` naming someone new
/// or linking two entities writes) is put into the graph caches in place: the refresh says so (a
/// timing mark) and the graph cache, the names and the facts kept are the ones a rebuild writes.
/// An entity that a dangling relation waited for (it makes an edge) and an entity removed are
/// rebuilt, and come out as a rebuild's too.
#[test]
fn issue_20_a_change_to_a_few_entities_is_patched_into_the_graph_caches() {
    let env = TestEnv::initialized();
    write_entity(&env, "person--ann", "Ann", "active", &["knows: [[person--zed]]"]);
    write_entity(&env, "project--atlas", "Atlas", "active", &["owned-by: [[person--ann]]"]);
    env.git_commit_all("entities by hand");
    let facts_lines = |env: &TestEnv| {
        let facts = env.read(".cogmem/index/graph/00.facts");
        facts.split_once('\n').unwrap().1.to_owned() // after the header (the cache's stamp)
    };
    let read = |env: &TestEnv| {
        let [graph, names, dangling, shards] = graph_set(env);
        (graph, names, facts_lines(env), format!("{dangling}{shards}"))
    };
    // A search refreshes the index (no match: exit 1); its marks say what the refresh did.
    let search = |env: &TestEnv| {
        let out = env.run(["search", "anything"]).env("COGMEM_TIMINGS", "1").output();
        assert!([0, 1].contains(&out.code), "{out}");
        out.stderr
    };
    let rebuilt = |env: &TestEnv| {
        env.run(["reindex", "--full"]).success();
        read(env)
    };
    search(&env);
    type Step = Box<dyn Fn(&TestEnv)>;
    let steps: Vec<(&str, Step, &str, bool)> = vec![
        (
            "a new entity of no relations",
            Box::new(|env| write_entity(env, "person--quill", "Quill", "active", &[])),
            "\nperson--quill\t",
            true,
        ),
        (
            "another, first in order",
            Box::new(|env| write_entity(env, "concept--aardvark", "Aardvark", "active", &[])),
            "\nconcept--aardvark\t",
            true,
        ),
        (
            "a new entity with relations",
            Box::new(|env| {
                let rels = ["knows: [[person--ann]]", "uses: [[project--atlas]] (confidence 0.6)"];
                write_entity(env, "person--mo", "Mo", "active", &rels);
            }),
            "person--mo 0.6",
            true,
        ),
        (
            "a relation added, a name and a status changed",
            Box::new(|env| {
                let rels = ["knows: [[person--zed]]", "mentors: [[person--quill]]"];
                write_entity(env, "person--ann", "Annie", "inactive", &rels);
            }),
            "person--ann 1",
            true,
        ),
        (
            "a relation closed and one to itself",
            Box::new(|env| {
                let rels =
                    ["owned-by: [[person--ann]] (until 2026-02-01)", "part-of: [[project--atlas]]"];
                write_entity(env, "project--atlas", "Atlas", "active", &rels);
            }),
            "project--atlas 1\tproject--atlas 1",
            true,
        ),
        (
            "the entity a dangling relation waited for",
            Box::new(|env| write_entity(env, "person--zed", "Zed", "active", &[])),
            "\nperson--zed\t",
            false,
        ),
        (
            "an entity removed",
            Box::new(|env| {
                std::fs::remove_file(env.path("memory/graph/entities/person--mo.md")).unwrap();
            }),
            "#nodes",
            false,
        ),
    ];
    for (what, step, expect, patched) in &steps {
        step(&env);
        env.git_commit_all(what);
        let marks = search(&env);
        assert_eq!(marks.contains("graph caches patched"), *patched, "{what}: {marks}");
        let got = read(&env);
        assert!(got.0.contains(expect), "{what}: {}", got.0);
        assert_eq!(got, rebuilt(&env), "{what}");
    }
    // A remember that names someone new, and one that links two entities: the index update
    // patches them in.
    env.run(["remember", "Had coffee with Quentavio about the audit plan"]).success();
    assert!(env.path("memory/graph/entities/person--quentavio.md").is_file());
    search(&env);
    env.wait_for_index();
    let got = read(&env);
    assert!(got.1.contains("person--quentavio\t"), "{}", got.1);
    assert_eq!(got, rebuilt(&env));
    env.run([
        "remember",
        "--relation",
        "person--quill|works-on|project--atlas",
        "Quill works on Atlas",
    ])
    .success();
    search(&env);
    env.wait_for_index();
    let got = read(&env);
    assert!(got.0.contains("project--atlas 1"), "{}", got.0);
    assert_eq!(got, rebuilt(&env));
}

/// Writes an entity file by hand: a title, its type (from the id), a status and relation bullets.
fn write_entity(env: &TestEnv, id: &str, title: &str, status: &str, relations: &[&str]) {
    let rows: String = relations.iter().map(|r| format!("- {r}\n")).collect();
    let kind = id.split_once("--").unwrap().0;
    env.write(
        &format!("memory/graph/entities/{id}.md"),
        &format!(
            "# {title}\n<!-- Type: {kind} | Created: 2026-01-01 | Status: {status} -->\n\n\
             ## Summary\n\n{title}.\n\n## Relations\n\n{rows}"
        ),
    );
}

/// `graph stats`, `graph path`, neighbours past one hop and the drawing's activation take the
/// graph from the facts the index keeps (issue 20: every entity file read and parsed, 250–400 ms
/// at 10,000 entities), brought up to date with a hand edit first, and answer as the graph of
/// the files does (the index with no facts to trust); an index without facts gets them at its
/// next refresh.
#[test]
fn issue_20_whole_graph_reads_from_the_kept_facts_answer_as_the_files_do() {
    let env = TestEnv::initialized();
    write_entity(
        &env,
        "person--ann",
        "Ann",
        "active",
        &["knows: [[person--bo]]", "works-on: [[project--atlas]]"],
    );
    write_entity(&env, "person--bo", "Bo", "active", &["knows: [[person--cy]] (confidence 0.5)"]);
    write_entity(
        &env,
        "person--cy",
        "Cy",
        "active",
        &["lives-in: [[place--lisbon]]", "knows: [[person--nobody]]"],
    );
    write_entity(&env, "project--atlas", "Atlas", "active", &[]);
    write_entity(&env, "place--lisbon", "Lisbon", "active", &[]);
    env.git_commit_all("entities by hand");
    let facts = ".cogmem/index/graph/00.facts";
    let answers = |env: &TestEnv| -> Vec<String> {
        [
            vec!["graph", "stats", "--json"],
            vec!["graph", "path", "person--ann", "place--lisbon", "--json"],
            vec!["graph", "neighbors", "person--ann", "--depth", "3", "--json"],
            vec!["graph", "export", "--dot"],
        ]
        .into_iter()
        .map(|args| env.run(args).success().stdout)
        .collect()
    };
    let from_facts = answers(&env);
    assert!(env.path(facts).is_file(), "the facts are kept");
    // A shard's facts gone: the files answer, the same.
    let kept = env.read(facts);
    std::fs::remove_file(env.path(facts)).unwrap();
    assert_eq!(answers(&env), from_facts);
    env.write(facts, &kept);
    // The set's `shards` file gone (as a write cut short leaves it): a refresh writes the set
    // again.
    std::fs::remove_file(env.path(".cogmem/index/graph/shards")).unwrap();
    std::fs::remove_file(env.path(facts)).unwrap();
    assert_eq!(answers(&env), from_facts);
    assert!(env.path(facts).is_file(), "a refresh keeps them again");
    assert!(env.path(".cogmem/index/graph/shards").is_file());
    assert!(from_facts[1].contains("person--cy"), "{}", from_facts[1]);
    // A hand edit, not committed: a shorter path.
    let ann = env.read("memory/graph/entities/person--ann.md");
    env.write(
        "memory/graph/entities/person--ann.md",
        &format!("{ann}- visits: [[place--lisbon]]\n"),
    );
    let edited = answers(&env);
    assert!(!edited[1].contains("person--cy"), "{}", edited[1]);
    let kept = env.read(facts);
    // The graph cache rewritten by something else: the facts are not trusted, the files answer.
    let graph = env.read(".cogmem/index/graph/00.tsv");
    env.write(".cogmem/index/graph/00.tsv", &format!("{graph}\n"));
    assert_eq!(answers(&env), edited, "the graph of the files");
    assert_eq!(env.read(facts), kept, "reads leave the facts as they are");
    assert!(kept.contains("[\"visits\",\"place--lisbon\""), "the edit is in the facts: {kept}");
}

/// `graph check` takes the graph from the facts the index keeps, brought up to date with the
/// files first, and reads an entity file only when it changed or a finding names it (for the
/// finding's line): it read and parsed every entity file (4.3 s at 10,000 entities in a debug
/// build). Its findings, lines included, are the ones the files give, after a hand edit too.
/// See: issue 20
#[test]
fn issue_20_graph_check_reads_only_changed_entity_files_and_the_ones_it_names() {
    let env = TestEnv::initialized();
    write_entity(&env, "person--ann", "Ann", "active", &["works-on: [[project--atlas]]"]);
    write_entity(&env, "project--atlas", "Atlas", "active", &[]);
    write_entity(&env, "concept--z", "Z", "active", &["relates-to: [[concept--missing]]"]);
    env.git_commit_all("entities by hand");
    let check = |env: &TestEnv| {
        let out = env.run(["graph", "check"]).env("COGMEM_TIMINGS", "1").output().code(3);
        (out.stdout.clone(), out.stderr.clone())
    };
    let lines_read = |stderr: &str| -> Vec<String> {
        stderr
            .lines()
            .filter_map(|l| {
                l.split_once("graph: relation lines read from ").map(|(_, p)| p.to_owned())
            })
            .collect()
    };
    let dangling = "memory/graph/entities/concept--z.md:10: dangling: `relates-to` links to \
                    concept--missing, which has no file";
    let (stdout, stderr) = check(&env);
    assert!(stdout.contains(dangling), "{stdout}");
    assert_eq!(lines_read(&stderr), ["memory/graph/entities/concept--z.md"], "{stderr}");
    // Nothing changed: no entity file is read but the one the finding names.
    let (again, stderr) = check(&env);
    assert_eq!(again, stdout);
    assert!(
        !stderr.contains("changed files to read") || stderr.contains("index: 0 changed files"),
        "nothing to read again: {stderr}"
    );
    assert_eq!(lines_read(&stderr), ["memory/graph/entities/concept--z.md"], "{stderr}");
    // A hand edit: the changed file alone is read, and the finding's line follows it.
    let z = env.read("memory/graph/entities/concept--z.md");
    env.write(
        "memory/graph/entities/concept--z.md",
        &z.replace("## Relations\n\n", "## Relations\n\n- part-of: [[person--ann]]\n"),
    );
    let ann = env.read("memory/graph/entities/person--ann.md");
    env.write(
        "memory/graph/entities/person--ann.md",
        &format!("{ann}- frobnicates: [[concept--z]]\n"),
    );
    let (stdout, stderr) = check(&env);
    assert!(stderr.contains("index: 2 changed files to read"), "{stderr}");
    assert!(stdout.contains(&dangling.replace(":10:", ":11:")), "{stdout}");
    assert!(
        stdout.contains(
            "memory/graph/entities/person--ann.md:11: unknown-relation: `frobnicates` is not in \
             memory/graph/relations.md"
        ),
        "{stdout}"
    );
    let mut read = lines_read(&stderr);
    read.sort();
    assert_eq!(
        read,
        ["memory/graph/entities/concept--z.md", "memory/graph/entities/person--ann.md"],
        "{stderr}"
    );
    // An entity file that is not UTF-8 is named, as the files give it.
    std::fs::write(env.path("memory/graph/entities/person--bad.md"), b"# Bad\n\xff\xfe\n").unwrap();
    let (stdout, _) = check(&env);
    assert!(stdout.contains("memory/graph/entities/person--bad.md:1: unreadable:"), "{stdout}");
}
