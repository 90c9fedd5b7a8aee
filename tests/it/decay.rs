//! Decay and reinforcement through the real binary, with the clock moved forward: bands change
//! on the right days, uses keep memories fresh, the vault never fades, forgotten memories stay
//! archived, and every transition is in the audit log.

use crate::common::TestEnv;

fn decay_json(env: &TestEnv) -> serde_json::Value {
    serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap()
}

fn status(env: &TestEnv, id: &str) -> String {
    decay_json(env)["entries"][id]["status"].as_str().unwrap_or("missing").to_owned()
}

/// An episode (weight 0.8) is active until 0.8·e^(−0.03·d) < 0.5 (day 15.7), fading until
/// < 0.2 (day 46.2), dormant until < 0.05 (day 92.4), then archived.
#[test]
fn episode_fades_through_every_band_on_the_right_days() {
    let env = TestEnv::initialized();
    // No name: no entity link (issue 22), so the entity is first written below.
    env.mutate(["remember", "lunch at the noodle place"]);
    env.mutate(["remember", "Bob's birthday is March 3", "--entity", "person--bob"]);
    env.mutate(["remember", "the spare key is under the blue pot", "--store", "vault"]);
    let ep = "episode:2026-12-01:09:00";
    let vault = "vault:the-spare-key-is-under-the-blue-pot";
    let days = [
        (15, "active"),
        (16, "fading"),
        (46, "fading"),
        (47, "dormant"),
        (92, "dormant"),
        (93, "archived"),
    ];
    for (day, want) in days {
        let when = chrono::DateTime::parse_from_rfc3339("2026-12-01T09:00:00Z").unwrap()
            + chrono::Duration::days(day);
        env.set_now(&when.to_rfc3339());
        let before = env.commit_count();
        let out = env.run(["decay"]).success();
        assert!(env.commit_count() <= before + 1, "at most one commit: {out}");
        env.assert_clean_tree();
        assert_eq!(status(&env, ep), want, "day {day}: {out}");
        assert_eq!(
            decay_json(&env)["entries"][vault]["current_score"],
            1.0,
            "the vault never fades (day {day})"
        );
    }
    let audit = env.audit_lines();
    for (from, to) in [("active", "fading"), ("fading", "dormant"), ("dormant", "archived")] {
        let line = format!(
            "| DECAY | memory/episodes/2026-12-01.md | system:decay | auto | {ep} {from} → {to} ("
        );
        assert!(
            audit.iter().any(|l| l.contains(&line)),
            "missing transition {from} → {to}: {audit:#?}"
        );
    }
    assert_eq!(env.git(&["log", "-1", "--format=%an"]).trim(), "system:decay");
    // The entity's comment line follows the JSON.
    let bob = env.read("memory/graph/entities/person--bob.md");
    assert!(bob.contains("<!-- Decay score: 0.07 | Access count: 1 | Pinned: no -->"), "{bob}");
    // Archived memories are hidden from recall but kept in the file, and shown by id.
    let out = env.run(["recall", "noodle lunch", "--all", "--json"]).success();
    assert_eq!(out.stdout.trim(), "[]");
    assert!(env.read("memory/episodes/2026-12-01.md").contains("lunch at the noodle place"));
    env.run(["show", ep]).success();
}

/// A memory that is recalled stays active while an unused one fades.
#[test]
fn recalled_memories_stay_active() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "the gym opens at six"]);
    env.mutate(["remember", "the library closes at eight"]);
    for day in [10, 20, 30, 40] {
        let when = chrono::DateTime::parse_from_rfc3339("2026-12-01T12:00:00Z").unwrap()
            + chrono::Duration::days(day);
        env.set_now(&when.to_rfc3339());
        let out = env.run(["recall", "gym", "--json"]).success();
        assert!(out.stdout.contains("episode:2026-12-01:09:00"), "{out}");
    }
    assert!(env.path(".cogmem/access.log").is_file(), "uses are recorded without a commit");
    env.assert_clean_tree();
    env.run(["decay"]).success();
    assert!(
        !env.path(".cogmem/access.log").exists()
            && !env.path(".cogmem/access.log.folding").exists()
    );
    let d = decay_json(&env);
    assert_eq!(d["entries"]["episode:2026-12-01:09:00"]["access_count"], 5);
    assert_eq!(d["entries"]["episode:2026-12-01:09:00"]["status"], "active");
    assert_eq!(d["entries"]["episode:2026-12-01:09:00:2"]["status"], "fading");
}

/// A sub-agent may only propose: `touch` is refused (exit 4), and its reads (`show`, `recall`,
/// `context`) record no uses, so no later commit (its own proposal's included) folds its
/// reinforcement into the tracked decay file.
/// See: docs/decisions.md 2026-12-06 (a sub-agent's reads record no uses)
#[test]
fn a_subagents_reads_record_no_uses_and_its_touch_is_refused() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "the kiwi fruit is ripe in March"]);
    let id = "episode:2026-12-01:09:00";
    let log = || std::fs::read_to_string(env.path(".cogmem/access.log")).unwrap_or_default();
    let before = log();
    let out = env.run(["--actor", "subagent:scout", "touch", id]).output().code(4);
    assert!(out.stderr.contains("subagent:scout is a sub-agent"), "{out}");
    env.run(["--actor", "subagent:scout", "show", id]).success();
    env.run(["--actor", "subagent:scout", "recall", "kiwi"]).success();
    env.run(["--actor", "subagent:scout", "context", "kiwi"]).success();
    assert_eq!(log(), before, "a sub-agent's reads are no uses");
    env.run(["--actor", "subagent:scout", "propose", "kiwi is a fruit"]).success();
    assert_eq!(env.git(&["log", "-1", "--format=%an"]), "subagent:scout\n");
    assert_eq!(decay_json(&env)["entries"][id]["access_count"], 1, "only its creation");
    // The main agent's same reads are uses.
    env.run(["show", id]).success();
    env.run(["touch", id]).success();
    assert_eq!(log().matches(id).count(), before.matches(id).count() + 2, "{}", log());
}

#[test]
fn forgotten_memories_stay_archived_through_decay() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "the old address is 12 Elm Street"]);
    env.mutate(["forget", "--id", "episode:2026-12-01:09:00", "--yes"]);
    env.set_now("2026-12-02T09:00:00Z");
    env.run(["decay"]).success();
    let d = decay_json(&env);
    assert_eq!(d["entries"]["episode:2026-12-01:09:00"]["status"], "archived");
    assert_eq!(d["entries"]["episode:2026-12-01:09:00"]["current_score"], 0.0);
    env.mutate(["restore", "episode:2026-12-01:09:00"]);
    assert_eq!(status(&env, "episode:2026-12-01:09:00"), "active");
}

#[test]
fn uses_are_folded_by_the_next_change_exactly_once() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice likes tea", "--entity", "person--alice"]);
    env.run(["touch", "entity:person--alice"]).success();
    env.run(["show", "entity:person--alice"]).success();
    env.assert_clean_tree();
    let out = env.mutate(["remember", "something else"]);
    assert!(out.stderr.contains("remembered"), "{out}");
    assert_eq!(decay_json(&env)["entries"]["entity:person--alice"]["access_count"], 3);
    let folded = env.audit_lines().into_iter().any(|l| {
        l.contains("| EDIT | memory/meta/decay-scores.json |") && l.contains("folded 2 uses")
    });
    assert!(folded, "{:#?}", env.audit_lines());
    // A crash after the commit leaves the batch behind with its hash recorded: not folded twice.
    let batch = "2026-12-01T09:00:05Z\tuse\tentity:person--alice\n";
    env.write(".cogmem/access.log.folding", batch);
    let mut d = decay_json(&env);
    d["access_fold"] = serde_json::json!(
        git2::Oid::hash_object(git2::ObjectType::Blob, batch.as_bytes()).unwrap().to_string()[..8]
            .to_owned()
    );
    env.write("memory/meta/decay-scores.json", &(serde_json::to_string_pretty(&d).unwrap() + "\n"));
    env.git_commit_all("simulate the commit that folded the batch");
    env.mutate(["remember", "a third thing"]);
    assert_eq!(decay_json(&env)["entries"]["entity:person--alice"]["access_count"], 3);
    assert!(!env.path(".cogmem/access.log.folding").exists());
    let out = env.run(["touch", "entity:person--nobody"]).output().code(1);
    assert!(out.stderr.contains("no memory has the id"), "{out}");
}

#[test]
fn pin_unpin_and_why() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice likes tea", "--entity", "person--alice"]);
    env.mutate(["pin", "entity:person--alice"]);
    assert!(env.read("memory/graph/entities/person--alice.md").contains("Pinned: yes"));
    env.set_now("2027-06-01T00:00:00Z");
    env.run(["decay"]).success();
    assert_eq!(decay_json(&env)["entries"]["entity:person--alice"]["current_score"], 1.0);
    let out = env.run(["why", "entity:person--alice"]).success();
    assert!(out.stdout.contains("pinned: always 1.0"), "{out}");
    env.mutate(["unpin", "entity:person--alice"]);
    let out = env.run(["why", "entity:person--alice", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["band"], "archived");
    assert!(v["formula"].as_str().unwrap().starts_with("clamp01(1.00 × e^(−0.03 × 181.6"), "{v}");
    env.mutate(["remember", "wifi 4417", "--store", "vault"]);
    let out = env.run(["unpin", "vault:wifi-4417"]).output().code(4);
    assert!(out.stderr.contains("is in the vault, where memories are always pinned"), "{out}");
}

#[test]
fn interactions_clock_ignores_idle_days() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[decay]\nclock = \"interactions\"\n");
    env.git_commit_all("interaction clock");
    env.mutate(["remember", "first"]);
    env.set_now("2028-01-01T00:00:00Z");
    env.run(["decay"]).success();
    assert_eq!(status(&env, "episode:2026-12-01:09:00"), "active", "two idle years change nothing");
    for i in 0..20 {
        env.mutate(["remember", &format!("busy {i}")]);
    }
    env.run(["decay"]).success();
    let d = decay_json(&env);
    assert_eq!(d["interactions"], 21);
    assert_eq!(
        d["entries"]["episode:2026-12-01:09:00"]["status"], "fading",
        "20 interactions later"
    );
}

#[test]
fn dry_run_writes_nothing() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "x"]);
    env.set_now("2027-01-01T00:00:00Z");
    let head = env.head();
    let out = env.run(["decay", "--dry-run", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["dry_run"], true);
    assert_eq!(v["transitions"][0]["to"], "fading");
    assert_eq!(env.head(), head);
}

/// Builds a command for the real binary that can run alongside others (the `TestEnv` clock is
/// not shared between threads, so these carry a fixed time).
fn concurrent_cmd(env: &TestEnv, now: &str, args: &[&str]) -> std::process::Command {
    let mut c = crate::common::sealed_command(&env.home, &env.root, now);
    c.args(args).stdin(std::process::Stdio::null());
    c
}

#[test]
fn uses_recorded_while_a_change_folds_the_log_are_not_lost() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice likes tea", "--entity", "person--alice"]);
    let writer = {
        let cmds: Vec<std::process::Command> = (0..8)
            .map(|i| {
                concurrent_cmd(&env, "2026-12-02T09:00:00Z", &["remember", &format!("note {i}")])
            })
            .collect();
        std::thread::spawn(move || {
            for mut c in cmds {
                let out = c.output().unwrap();
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            }
        })
    };
    let touches = 60;
    for _ in 0..touches {
        let out = concurrent_cmd(&env, "2026-12-02T09:00:00Z", &["touch", "entity:person--alice"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    writer.join().unwrap();
    env.run(["decay"]).success();
    env.assert_clean_tree();
    assert_eq!(
        decay_json(&env)["entries"]["entity:person--alice"]["access_count"],
        1 + touches,
        "creation plus every touch"
    );
}

#[test]
fn touching_a_memory_without_a_decay_entry_creates_its_entry_when_folded() {
    let env = TestEnv::initialized();
    env.write(
        "memory/graph/entities/person--carol.md",
        "# person--carol\n<!-- Type: person | Created: 2026-11-30 -->\n\n## Facts\n\n- Carol plays jazz piano\n",
    );
    env.git_commit_all("a hand-written entity");
    env.run(["touch", "entity:person--carol"]).success();
    env.run(["show", "entity:person--carol"]).success();
    // The plain commit is adopted first (issue 17), in its own commit, which folds the uses.
    env.run(["remember", "something else"]).success();
    let authors = env.git(&["log", "-2", "--format=%an"]);
    assert_eq!(authors, "test-agent\nsystem:adopt\n");
    let carol = &decay_json(&env)["entries"]["entity:person--carol"];
    assert_eq!(carol["access_count"], 3, "an entry, plus both uses: {carol:#}");
    assert_eq!(carol["store"], "semantic", "{carol:#}");
    assert!(!env.path(".cogmem/access.log.folding").exists());
}

#[test]
fn uses_are_kept_when_there_is_no_decay_file_to_fold_them_into() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice likes tea", "--entity", "person--alice"]);
    env.mutate(["remember", "Bob plays chess", "--entity", "person--bob"]);
    env.git(&["rm", "-q", "memory/meta/decay-scores.json"]);
    env.git(&["commit", "-q", "-m", "no decay file"]);
    env.run(["touch", "entity:person--alice"]).success();
    // A change that does not write the decay file cannot fold the uses: it must keep them.
    env.mutate(["graph", "merge", "person--alice", "person--bob"]);
    assert!(!env.path("memory/meta/decay-scores.json").exists());
    env.run(["decay"]).success();
    assert_eq!(decay_json(&env)["entries"]["entity:person--alice"]["access_count"], 2);
    assert!(!env.path(".cogmem/access.log.folding").exists());
    env.assert_clean_tree();
}

#[test]
fn showing_an_archived_or_forgotten_memory_does_not_revive_it() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "the old gym was on Elm Street"]);
    env.mutate(["remember", "the old address is 12 Oak Road"]);
    let (faded, forgotten) = ("episode:2026-12-01:09:00", "episode:2026-12-01:09:00:2");
    env.mutate(["forget", "--id", forgotten, "--yes"]);
    env.set_now("2027-04-01T09:00:00Z");
    env.run(["decay"]).success();
    assert_eq!(status(&env, faded), "archived");
    let count = |id: &str| decay_json(&env)["entries"][id]["access_count"].clone();
    let (faded_uses, forgotten_uses) = (count(faded), count(forgotten));
    let out = env.run(["show", faded]).success();
    assert!(out.stdout.contains("Elm Street"), "{out}");
    env.run(["show", forgotten]).success();
    assert!(!env.path(".cogmem/access.log").exists(), "looking is not a use");
    env.run(["decay"]).success();
    assert_eq!(status(&env, faded), "archived");
    assert_eq!(status(&env, forgotten), "archived");
    assert_eq!((count(faded), count(forgotten)), (faded_uses, forgotten_uses));
}

#[test]
fn why_explains_a_memory_that_has_no_decay_entry_yet() {
    let env = TestEnv::initialized();
    env.write(
        "memory/graph/entities/person--carol.md",
        "# person--carol\n<!-- Type: person | Created: 2026-11-30 -->\n\n## Facts\n\n- Carol plays jazz piano\n",
    );
    env.git_commit_all("a hand-written entity");
    let out = env.run(["why", "entity:person--carol"]).success();
    assert!(out.stdout.starts_with("entity:person--carol: 1.000 (active)\n"), "{out}");
    assert!(out.stdout.contains("  uses            1\n"), "{out}");
    assert!(out.stdout.contains("no decay entry yet: scored as a new memory"), "{out}");
    let out = env.run(["why", "entity:person--carol", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["has_entry"], false);
    assert_eq!(v["band"], "active");
    env.assert_clean_tree();
    let out = env.run(["why", "entity:person--nobody"]).output().code(1);
    assert!(out.stderr.contains("no memory has the id"), "{out}");
}

/// Past 1,000 entries the decay entries move into 64 shard files; from then on a change
/// commits only the shards it touches, and every reader (search, status, verify, forget,
/// decay) sees the entries wherever they live.
#[test]
fn a_large_workspace_splits_its_decay_entries_into_shards() {
    let env = TestEnv::initialized();
    // Messages only: no speaker entity (issue 22), whose file `decay` would also rewrite.
    let toml = env.read("cogmem.toml");
    env.write("cogmem.toml", &format!("{toml}\n[capture]\nextract_entities = false\n"));
    env.git_commit_all("no entity extraction");
    env.import_messages(1_050);
    env.assert_clean_tree();
    let main = decay_json(&env);
    assert_eq!(main["version"], 3, "the main file keeps its own fields");
    assert_eq!(main["entries"].as_object().map(|e| e.len()), Some(0), "entries moved out");
    let shard_entries = |env: &TestEnv| -> Vec<(String, String)> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(env.path("memory/meta/decay")).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            let v: serde_json::Value =
                serde_json::from_str(&env.read(&format!("memory/meta/decay/{name}"))).unwrap();
            assert_eq!(v.as_object().unwrap().len(), 1, "a shard holds only `entries`: {name}");
            for k in v["entries"].as_object().unwrap().keys() {
                out.push((name.clone(), k.clone()));
            }
        }
        out
    };
    let entries = shard_entries(&env);
    assert_eq!(entries.len(), 1_050, "every entry once, none lost");
    let files: std::collections::BTreeSet<&String> = entries.iter().map(|(f, _)| f).collect();
    assert!(files.len() > 50, "spread over the shards: {}", files.len());
    let status: serde_json::Value =
        serde_json::from_str(&env.run(["status", "--json"]).success().stdout).unwrap();
    assert_eq!(status["counts"]["decay_entries"], 1_050, "{status}");
    env.run(["verify"]).success();

    // A remember commits its episode and one shard, not the main file.
    env.set_now("2026-12-02T12:00:00Z");
    env.mutate(["remember", "the quarterly review moved to Friday"]);
    let changed = env.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]);
    let changed: Vec<&str> = changed.lines().collect();
    let shards: Vec<&&str> =
        changed.iter().filter(|p| p.starts_with("memory/meta/decay/")).collect();
    assert_eq!(shards.len(), 1, "{changed:?}");
    assert!(!changed.contains(&"memory/meta/decay-scores.json"), "{changed:?}");
    let id = "episode:2026-12-02:12:00";
    let home = format!("memory/meta/decay/{}", shards[0].rsplit('/').next().unwrap());
    let shard: serde_json::Value = serde_json::from_str(&env.read(&home)).unwrap();
    assert_eq!(shard["entries"][id]["access_count"], 1, "{home}");
    assert_eq!(shard_entries(&env).len(), 1_051);

    // Search scores from the shards; show reads the entry; forget archives it in its shard.
    let out = env.run(["search", "--json", "quarterly review"]).success();
    let hits: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(hits[0]["id"], id, "{out}");
    let out = env.run(["search", "--json", "topic7"]).success();
    let hits: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(hits[0]["source"], "m7", "{out}");
    let show: serde_json::Value =
        serde_json::from_str(&env.run(["show", id, "--json"]).success().stdout).unwrap();
    assert_eq!(show["why"]["has_entry"], true, "{show}");
    env.run(["forget", id, "--yes"]).success();
    let shard: serde_json::Value = serde_json::from_str(&env.read(&home)).unwrap();
    assert_eq!(shard["entries"][id]["status"], "archived");
    env.assert_clean_tree();

    // A month later: decay rescores entries in every shard, in one commit.
    env.set_now("2027-01-15T12:00:00Z");
    let before = env.commit_count();
    env.run(["decay"]).success();
    assert_eq!(env.commit_count(), before + 1);
    let changed = env.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]);
    assert!(changed.lines().filter(|p| p.starts_with("memory/meta/decay/")).count() > 50);
    env.assert_clean_tree();
    env.run(["verify"]).success();
    // The index is derived: rebuilt from nothing, it scores the same.
    let before = env.run(["search", "--json", "--all", "note number"]).success().stdout;
    env.wait_for_index();
    std::fs::remove_dir_all(env.path(".cogmem")).unwrap();
    let after = env.run(["search", "--json", "--all", "note number"]).success().stdout;
    assert_eq!(before, after);
}

// See: issue 20
/// Past 16,384 decay entries, the next change that reads every shard (`decay`) spreads them over
/// 256 shard files and records the count; status counts every entry once, search scores from
/// the new shards, and a `remember` afterwards writes one of the 256.
#[test]
fn issue_20_past_16384_entries_decay_spreads_them_over_256_shards() {
    let env = TestEnv::initialized();
    let n = 16_500;
    let mut transcript = String::new();
    for i in 0..n {
        let k = i / 40;
        let (year, month, day) = (2020 + k / (28 * 12), 1 + (k / 28) % 12, 1 + k % 28);
        transcript.push_str(&format!(
            "{{\"timestamp\":\"{year}-{month:02}-{day:02}T10:{:02}:00Z\",\"speaker\":\"Ann\",\"text\":\"entry {i} about subject{i}\",\"id\":\"s{i}\"}}\n",
            i % 40
        ));
    }
    env.write("../many.jsonl", &transcript);
    env.run(["import", "../many.jsonl"]).success();
    let shard_files = || std::fs::read_dir(env.path("memory/meta/decay")).unwrap().count();
    assert_eq!(shard_files(), 64, "an import reads only the shards it writes: no growth");

    env.set_now("2027-01-15T12:00:00Z");
    env.run(["decay"]).success();
    assert_eq!(shard_files(), 256);
    let main: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    assert_eq!(main["shards"], 256);
    env.assert_clean_tree();
    env.run(["verify"]).success();
    let status: serde_json::Value =
        serde_json::from_str(&env.run(["status", "--json"]).success().stdout).unwrap();
    // Every message and the speaker's entity (`person--ann`, extracted), each once.
    assert_eq!(status["counts"]["decay_entries"], n + 1, "{status}");

    let out = env.run(["search", "--json", "--all", "subject16499"]).success();
    let hits: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(hits[0]["source"], "s16499", "{out}");
    // Scored from its entry in the new shard (its decay cache found): dormant, as `decay` left
    // it, not active as an entry-less memory would be.
    assert_eq!(hits[0]["status"], "dormant", "{out}");

    env.run(["remember", "the sixteen thousand and first memory"]).success();
    let changed = env.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]);
    let shards: Vec<&str> =
        changed.lines().filter(|p| p.starts_with("memory/meta/decay/")).collect();
    assert_eq!(shards.len(), 1, "{changed}");
    assert!(!changed.contains("decay-scores.json"), "{changed}");
    env.run(["verify"]).success();
}

// See: issue 20
/// Past 65,536 decay entries among 256 shards, the next change that reads every shard (`decay`)
/// spreads them over 1,024 files named with three hex digits and removes the two-digit ones, in
/// one commit; status counts every entry once, a `remember` afterwards writes one three-digit
/// shard, and search finds that memory with its status. (The entries are written directly, most naming no memory: an import
/// of 65,000 messages would take minutes in a debug build.)
#[test]
fn issue_20_past_65536_entries_decay_spreads_them_over_1024_three_digit_shards() {
    let env = TestEnv::initialized();
    env.run(["remember", "the lighthouse keeper's logbook"]).success();
    let n = 65_600;
    let mut shards = vec![String::new(); 256];
    for i in 0..n {
        let shard = &mut shards[i % 256];
        shard.push_str(if shard.is_empty() { "{\n  \"entries\": {\n" } else { ",\n" });
        shard.push_str(&format!(
            "    \"episode:2026-01-01:synthetic-{i}\": {{\n      \"store\": \"episodic\",\n      \"base_relevance\": 0.7,\n      \"created\": \"2026-01-01T10:00:00Z\",\n      \"last_accessed\": \"2026-01-01T10:00:00Z\",\n      \"access_count\": 1,\n      \"type_weight\": 0.8,\n      \"current_score\": 0.7,\n      \"status\": \"active\",\n      \"pinned\": false,\n      \"last_interaction\": 0\n    }}"
        ));
    }
    // The entries of the one real memory stay where `remember` put them (the main file, below
    // the split): a full load moves them to their shards too.
    for (i, text) in shards.iter().enumerate() {
        env.write(&format!("memory/meta/decay/{i:02x}.json"), &format!("{text}\n  }}\n}}\n"));
    }
    let mut main: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    let own = main["entries"].as_object().unwrap().len();
    main["shards"] = serde_json::json!(256);
    env.write("memory/meta/decay-scores.json", &serde_json::to_string_pretty(&main).unwrap());
    env.git_commit_all("decay entries of a large workspace");
    let names = || -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(env.path("memory/meta/decay"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names().len(), 256);

    env.set_now("2027-06-01T12:00:00Z");
    let before = env.commit_count();
    env.run(["decay"]).success();
    assert_eq!(env.commit_count(), before + 1, "one commit");
    let after = names();
    assert_eq!(after.len(), 1024);
    assert!(after.iter().all(|n| n.len() == "000.json".len()), "no two-digit file left");
    assert_eq!(after.first().map(String::as_str), Some("000.json"));
    assert_eq!(after.last().map(String::as_str), Some("3ff.json"));
    let main: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    assert_eq!(main["shards"], 1024);
    assert_eq!(main["entries"].as_object().map(|e| e.len()), Some(0));
    env.assert_clean_tree();
    let status: serde_json::Value =
        serde_json::from_str(&env.run(["status", "--json"]).success().stdout).unwrap();
    assert_eq!(status["counts"]["decay_entries"], n + own, "{status}");

    env.run(["remember", "the lighthouse keeper retired in spring"]).success();
    let changed = env.git(&["diff-tree", "--no-commit-id", "--name-only", "-r", "HEAD"]);
    let written: Vec<&str> =
        changed.lines().filter(|p| p.starts_with("memory/meta/decay/")).collect();
    assert_eq!(written.len(), 1, "{changed}");
    assert_eq!(written[0].len(), "memory/meta/decay/000.json".len(), "{changed}");
    let out = env.run(["search", "--json", "lighthouse keeper retired"]).success();
    let hits: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(hits[0]["status"], "active", "{out}");
    assert!(hits[0]["score"].as_f64().is_some(), "{out}");
}

/// A dry run, a forget that only lists, and a `hear` that writes nothing make no commit, not
/// even the adoption of a plain `git commit` (which waits for a command that writes).
#[test]
fn dry_runs_and_listings_leave_a_plain_commit_unadopted() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Atlas ships on Friday"]);
    let mut memory = env.read("MEMORY.md");
    memory.push_str("\n- Atlas reviews happen on Tuesdays\n");
    env.write("MEMORY.md", &memory);
    env.git_commit_all("by hand");
    let head = env.head();
    for args in [
        &["decay", "--dry-run"][..],
        &["upkeep", "--dry-run"],
        &["forget", "atlas"],
        &["forget", "atlas", "--dry-run"],
        &["forget", "atlas", "--yes", "--dry-run"],
        &["audit", "compact", "--dry-run"],
        &["hear", "--dry-run", "remember that Atlas has a blue logo"],
        &["hear", "what did we decide about atlas?"],
    ] {
        env.run(args).success();
        assert_eq!(env.head(), head, "{args:?} made a commit");
    }
    // The first command that writes adopts it.
    env.run(["decay"]).success();
    let authors = env.git(&["log", "--format=%an", &format!("{head}..")]);
    assert!(authors.lines().any(|a| a == "system:adopt"), "{authors}");
}

/// A memory written by hand and not committed yet gets no decay entry from `decay` (nor from a
/// use of it that `decay` folds), so the decay commit leaves no entry for a memory in no
/// committed file: the note deleted again, `verify` is clean (it reported an orphan entry).
/// Its uses wait in the access log, and the note gets its entry, those uses included, once it
/// is committed.
#[test]
fn decay_makes_no_entry_for_a_memory_in_an_uncommitted_file() {
    let env = TestEnv::initialized();
    env.mutate(["remember", "Alice likes tea"]);
    let note = "memory/vault/router.md";
    env.write(note, "# Router\n\nThe router admin password is in the blue binder.\n");
    env.run(["show", "vault:router"]).success();
    let out = env.run(["decay", "--json"]).success();
    let r: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(r["created"], serde_json::json!([]), "{out}");
    assert!(decay_json(&env)["entries"]["vault:router"].is_null(), "no entry for vault:router");
    assert_eq!(env.git_status(), format!("?? {note}\n"), "only the hand-written note");
    std::fs::remove_file(env.path(note)).unwrap();
    env.run(["search", "binder"]).success(); // a read brings the search index up to date
    env.wait_for_index();
    env.run(["verify"]).success();

    // Written again and committed: the entry comes, with the uses that waited.
    env.write(note, "# Router\n\nThe router admin password is in the blue binder.\n");
    env.run(["show", "vault:router"]).success();
    env.run(["decay"]).success();
    assert!(decay_json(&env)["entries"]["vault:router"].is_null());
    env.mutate(["sync"]);
    // Its creation, and both uses that waited (the note was back when they were folded).
    assert_eq!(decay_json(&env)["entries"]["vault:router"]["access_count"], 3);
    env.assert_clean_tree();
    env.wait_for_index();
    env.run(["verify"]).success();
}

/// `pin` of a memory in a file no commit holds (written by hand, not synced) is refused: its
/// entry would be committed without it, an orphan once the file went. Synced, it is pinned.
#[test]
fn pin_refuses_a_memory_in_an_uncommitted_file() {
    let env = TestEnv::initialized();
    let path = "memory/procedures/gate.md";
    env.write(path, "# Gate\n\n1. Open the gate with the code on the shed door.\n");
    let head = env.head();
    let out = env.run(["pin", "procedure:gate"]).output().code(4);
    assert!(out.stderr.contains(&format!("uncommitted edits in the way: {path}")), "{out}");
    assert!(out.stderr.contains("cogmem sync"), "{out}");
    assert_eq!(env.head(), head);
    assert_eq!(env.git_status(), format!("?? {path}\n"), "nothing else changed");
    env.mutate(["sync"]);
    env.mutate(["pin", "procedure:gate"]);
    assert_eq!(decay_json(&env)["entries"]["procedure:gate"]["pinned"], true);
}
