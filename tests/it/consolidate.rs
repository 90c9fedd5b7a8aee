//! Reflection that consolidates (issue 19): an approved reflection's operations change the
//! memory they name — EXTRACT by TARGET, CONNECT with the vocabulary's rules, REWRITE within
//! MEMORY.md's budget — in one commit by `reflection:r-NNN`, and `reflect submit` shows each
//! block's change as a diff first. Every file the approval changes is checked line by line.
// See: issue 19

use crate::common::TestEnv;

fn state(env: &TestEnv) -> String {
    let out = env.run(["reflect", "status", "--json"]).success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    v["state"].as_str().unwrap().to_owned()
}

fn to_ready(env: &TestEnv) {
    env.run(["reflect", "request"]).success();
    env.run(["--actor", "user:ann", "reflect", "decide", "approve"]).success();
}

/// A workspace with two entities, a procedure, core memory and an episode (ticks 1–8).
fn workspace() -> TestEnv {
    let env = TestEnv::initialized();
    env.run(["remember", "--entity", "person--ann", "Ann lives in Oslo"]).success();
    env.run(["remember", "--entity", "person--ann", "Ann likes tea"]).success();
    env.run([
        "remember",
        "--store",
        "procedural",
        "--title",
        "deploy site",
        "build the site\npush to main",
    ])
    .success();
    env.run(["remember", "--store", "core", "--section", "active-context", "Ship v1 by Friday"])
        .success();
    env.run(["remember", "--store", "core", "--section", "persona", "Prefers short answers"])
        .success();
    env.run(["remember", "Bob talked about the garden"]).success();
    env.run(["remember", "--entity", "project--atlas", "Atlas is the billing rewrite"]).success();
    env
}

const WHOLE: &str = "\
Ann and Atlas keep coming up together.

OPERATION: EXTRACT
TARGET: entity:person--ann
CONTENT: Ann moved her team to Atlas
REASON: said on Monday
---
OPERATION: EXTRACT
TARGET: person--carl
CONTENT: Carl reviews Ann's pull requests
REASON: seen twice
---
OPERATION: EXTRACT
TARGET: procedure:deploy-site
CONTENT: run the smoke tests
REASON: forgot it last time
---
OPERATION: EXTRACT
TARGET: MEMORY.md#Critical Facts
CONTENT: Ann is allergic to peanuts
REASON: she said so
---
OPERATION: EXTRACT
TARGET: memory/episodes/
CONTENT: Ann and Carl pair on Fridays
REASON: a pattern of the week
---
OPERATION: CONNECT
TARGET: entity:person--ann
CONTENT: person--ann|works-on|project--atlas
REASON: she moved her team
---
OPERATION: REWRITE
TARGET: entity:person--ann#Ann likes tea
CONTENT: Ann likes green tea
REASON: she corrected it
---
OPERATION: REWRITE
TARGET: MEMORY.md#Ship v1
CONTENT: Ship v1 by Monday
REASON: the date moved
---
OPERATION: ARCHIVE
TARGET: episode:2026-12-01:09:00
REASON: the garden talk is done
---
OPERATION: PATTERN
TARGET: memory/meta/evolution.md
CONTENT: Ann brings up Atlas in the mornings
REASON: three mornings
---
OPERATION: EVOLVE
TARGET: memory/meta/evolution.md
CONTENT: I read Ann's short answers as focus, not mood
REASON: she said so
---
OPERATION: FLAG
TARGET: entity:person--ann, entity:project--atlas
CONTENT: doubt: Ann may only be helping Atlas for a month
REASON: one episode only
---
";

/// The lines of `text` after the line `from`, up to the next blank line or heading.
fn after(text: &str, from: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| *l != from)
        .skip(1)
        .skip_while(|l| l.is_empty() || l.starts_with("<!--"))
        .take_while(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

#[test]
fn issue_19_an_approved_reflection_writes_every_operation_where_its_target_says() {
    let env = workspace();
    to_ready(&env);
    env.write("../reflection.md", WHOLE);

    // Submit: every block's exact change, as a diff, before anyone approves.
    let out = env.mutate(["reflect", "submit", "../reflection.md"]);
    let diff = &out.stdout;
    for want in [
        "block 1 EXTRACT entity:person--ann — writes\n--- a/memory/graph/entities/person--ann.md\n+++ b/memory/graph/entities/person--ann.md\n@@ -8,6 +8,7 @@\n \n - Ann lives in Oslo\n - Ann likes tea\n+- Ann moved her team to Atlas\n",
        "block 2 EXTRACT person--carl — writes\n--- /dev/null\n+++ b/memory/graph/entities/person--carl.md\n@@ -0,0 +1,15 @@\n+# person--carl\n",
        "+3. run the smoke tests\n",
        "## Critical Facts\n <!-- ~1,000 tokens: things that must never be forgotten; pinned by the user -->\n+- Ann is allergic to peanuts\n",
        "+## 09:00 | fact | confidence:medium | tags:[reflection]\n+Ann and Carl pair on Fridays\n",
        "block 6 CONNECT entity:person--ann — writes\n",
        "+- works-on: [[project--atlas]] (since 2026-12-01)\n",
        "+- worked-on-by: [[person--ann]] (since 2026-12-01)\n",
        " - Ann lives in Oslo\n-- Ann likes tea\n+- Ann likes green tea\n - Ann moved her team to Atlas\n",
        "-- Ship v1 by Friday\n+- Ship v1 by Monday\n",
        "block 9 ARCHIVE episode:2026-12-01:09:00 — archives it (hidden from recall, kept in its file and in git)\n",
        "block 10 PATTERN memory/meta/evolution.md — is recorded in evolution.md\n",
    ] {
        assert!(diff.contains(want), "missing {want:?} in:\n{diff}");
    }
    let json = env.run(["reflect", "status", "--json"]).success().stdout;
    assert!(json.contains("awaiting_approval"), "{json}");
    // Nothing but pending-reflection.md (and the audit log) changed at submit.
    let changed = env.git(&["show", "--name-only", "--format=", "HEAD"]);
    assert_eq!(changed, "memory/meta/audit.log\nmemory/meta/pending-reflection.md\n");

    // Approve: one commit by reflection:r-001 with every change.
    env.mutate(["--actor", "user:ann", "reflect", "approve"]);
    let log = env.git(&["log", "-1", "--format=%an%n%s"]);
    assert_eq!(
        log.trim(),
        "reflection:r-001\n[CREATE] memory/meta/reflections/2026-12-01.md +14 — reflection #1 approved"
    );
    let files = env.git(&["show", "--name-only", "--format=", "HEAD"]);
    let mut files: Vec<&str> = files.lines().collect();
    files.sort_unstable();
    assert_eq!(
        files,
        [
            "MEMORY.md",
            "memory/episodes/2026-12-01.md",
            "memory/graph/entities/person--ann.md",
            "memory/graph/entities/person--carl.md",
            "memory/graph/entities/project--atlas.md",
            "memory/graph/index.md",
            "memory/meta/audit.log",
            "memory/meta/decay-scores.json",
            "memory/meta/evolution.md",
            "memory/meta/flags.md",
            "memory/meta/pending-reflection.md",
            "memory/meta/reflection-log.md",
            "memory/meta/reflections/2026-12-01.md",
            "memory/meta/reward-log.md",
            "memory/meta/rewards/2026-12-01.md",
            "memory/procedures/deploy-site.md",
        ]
    );
    let audit: Vec<String> = env.audit_lines().into_iter().rev().take(15).rev().collect();
    let s = "2026-12-01T09:00:12Z";
    let r = "reflection:r-001 | approved";
    assert_eq!(
        audit,
        [
            format!("{s} | CREATE | memory/meta/reflections/2026-12-01.md | {r} | reflection #1"),
            format!(
                "{s} | EDIT | memory/graph/entities/person--ann.md | {r} | fact: Ann moved her team to Atlas"
            ),
            format!(
                "{s} | CREATE | memory/graph/entities/person--carl.md | {r} | new entity person--carl"
            ),
            format!(
                "{s} | EDIT | memory/procedures/deploy-site.md | {r} | steps added: run the smoke tests"
            ),
            format!("{s} | EDIT | MEMORY.md | {r} | Critical Facts: Ann is allergic to peanuts"),
            format!(
                "{s} | APPEND | memory/episodes/2026-12-01.md | {r} | 09:00 fact: Ann and Carl pair on Fridays"
            ),
            format!(
                "{s} | EDIT | memory/graph/entities/project--atlas.md | {r} | relation: project--atlas worked-on-by person--ann"
            ),
            format!(
                "{s} | CREATE | memory/meta/flags.md | {r} | flag #1 raised by reflection #1 on entity:person--ann, entity:project--atlas"
            ),
            format!("{s} | EDIT | memory/graph/index.md | {r} | regenerated from the entity files"),
            format!("{s} | APPEND | memory/meta/reflection-log.md | {r} | reflection #1"),
            format!("{s} | APPEND | memory/meta/reward-log.md | {r} | reward #1"),
            format!("{s} | EDIT | memory/meta/evolution.md | {r} | reflection #1"),
            format!(
                "{s} | EDIT | memory/meta/rewards/2026-12-01.md | {r} | reflection #1 approved"
            ),
            format!(
                "{s} | EDIT | memory/meta/decay-scores.json | {r} | reflection #1 state; archived episode:2026-12-01:09:00"
            ),
            format!(
                "{s} | EDIT | memory/meta/pending-reflection.md | {r} | reflection #1 approved; pending reset"
            ),
        ]
    );

    // Each memory file, line by line.
    let ann = env.read("memory/graph/entities/person--ann.md");
    assert_eq!(
        after(&ann, "## Facts"),
        ["- Ann lives in Oslo", "- Ann likes green tea", "- Ann moved her team to Atlas"]
    );
    assert_eq!(after(&ann, "## Relations"), ["- works-on: [[project--atlas]] (since 2026-12-01)"]);
    let atlas = env.read("memory/graph/entities/project--atlas.md");
    assert_eq!(
        after(&atlas, "## Relations"),
        ["- worked-on-by: [[person--ann]] (since 2026-12-01)"]
    );
    assert_eq!(
        env.read("memory/graph/entities/person--carl.md"),
        "# person--carl\n<!-- Type: person | Created: 2026-12-01 | Last updated: 2026-12-01 -->\n<!-- Decay score: 1.00 | Access count: 1 | Pinned: no -->\n\n## Summary\n\n## Facts\n\n- Carl reviews Ann's pull requests\n\n## Timeline\n\n## Open Questions\n\n## Relations\n"
    );
    let procedure = env.read("memory/procedures/deploy-site.md");
    assert_eq!(
        after(&procedure, "## Steps"),
        ["1. build the site", "2. push to main", "3. run the smoke tests"]
    );
    let core = env.read("MEMORY.md");
    assert_eq!(after(&core, "## Active Context"), ["- Ship v1 by Monday"]);
    assert_eq!(after(&core, "## Persona"), ["- Prefers short answers"]);
    assert_eq!(after(&core, "## Critical Facts"), ["- Ann is allergic to peanuts"]);
    let episodes = env.read("memory/episodes/2026-12-01.md");
    // The entry names two known people: linked (issue 22).
    assert!(
        episodes.ends_with("## 09:00 | fact | confidence:high | tags:[]\nBob talked about the garden\n<!-- entities: [[person--bob]] -->\n\n## 09:00 | fact | confidence:medium | tags:[reflection]\nAnn and Carl pair on Fridays\n<!-- entities: [[person--ann]] [[person--carl]] -->\n"),
        "{episodes}"
    );
    let index = env.read("memory/graph/index.md");
    for row in [
        "| person--carl | person | carl | entities/person--carl.md | 0.60 |",
        "| person--ann | works-on | project--atlas | 1.0 | 2026-12-01 | — |",
        "| project--atlas | worked-on-by | person--ann | 1.0 | 2026-12-01 | — |",
    ] {
        assert!(index.contains(row), "{row} not in:\n{index}");
    }
    let evolution = env.read("memory/meta/evolution.md");
    assert_eq!(evolution.matches("- Total reflections:").count(), 1, "{evolution}");
    assert!(
        evolution.ends_with("## Reflection #1 — 2026-12-01\n- Key insight: Ann and Atlas keep coming up together.\n- rewrite: Ann likes tea → Ann likes green tea\n- rewrite: Ship v1 by Friday → Ship v1 by Monday\n- pattern: Ann brings up Atlas in the mornings\n- evolve: I read Ann's short answers as focus, not mood\n- Reward: 0 (baseline) (approved as requested)\n"),
        "{evolution}"
    );
    let flags = env.read("memory/meta/flags.md");
    assert!(
        flags.contains("## Flag #1\n")
            && flags.contains("Ann may only be helping Atlas for a month"),
        "{flags}"
    );
    let why = env.run(["why", "person--ann"]).success().stdout;
    assert!(why.contains("Ann may only be helping Atlas for a month"), "{why}");
    let record = env.read("memory/meta/reflections/2026-12-01.md");
    assert!(record.contains("- #6 CONNECT entity:person--ann — applied\n- #7 REWRITE entity:person--ann#Ann likes tea — applied\n"), "{record}");
    // The old texts stay in history.
    assert!(env.git(&["show", "HEAD~1:MEMORY.md"]).contains("- Ship v1 by Friday\n"));
    assert!(
        env.git(&["show", "HEAD~1:memory/graph/entities/person--ann.md"])
            .contains("- Ann likes tea\n")
    );
    // decay-scores.json: the rewritten bullet keeps its entry under its new id, the new
    // memories are scored as inferred, the archived episode is archived.
    let decay: serde_json::Value =
        serde_json::from_str(&env.read("memory/meta/decay-scores.json")).unwrap();
    let entries = decay["entries"].as_object().unwrap();
    let ids: Vec<&str> =
        entries.keys().map(String::as_str).filter(|k| k.starts_with("core:")).collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
    let core_entry = |section: &str| {
        entries.iter().find(|(k, _)| k.starts_with(&format!("core:{section}:"))).unwrap().1
    };
    assert_eq!(core_entry("active-context")["base_relevance"], 1.0, "kept from before");
    assert_eq!(core_entry("critical-facts")["base_relevance"], 0.5, "inferred");
    assert_eq!(entries["entity:person--carl"]["base_relevance"], 0.5);
    assert_eq!(entries["episode:2026-12-01:09:00"]["status"], "archived");
    assert_eq!(entries["episode:2026-12-01:09:00:2"]["base_relevance"], 0.5);
    assert_eq!(state(&env), "idle");
    env.assert_clean_tree();
    // The graph reads the new relation from both ends.
    let n = env.run(["graph", "neighbors", "person--ann", "--json"]).success().stdout;
    assert!(n.contains("project--atlas"), "{n}");
}

#[test]
fn issue_19_connect_with_an_unknown_relation_is_refused_at_submit_with_the_nearest_names() {
    let env = workspace();
    to_ready(&env);
    let head = env.head();
    let text = "Links.\n\nOPERATION: CONNECT\nTARGET: entity:person--ann\nCONTENT: person--ann|works-onn|project--atlas\nREASON: she said so\n---\n";
    let out = env.run(["reflect", "submit", "-"]).stdin(text).output().code(1);
    assert!(
        out.stderr.contains("error: reflection block 1: unknown relation `works-onn`: ")
            && out.stderr.contains("memory/graph/relations.md does not define it"),
        "{out}"
    );
    assert!(out.stderr.contains("`works-on`"), "the nearest name: {out}");
    assert!(
        out.stderr.contains("hint: use a relation `cogmem graph relation list` shows"),
        "{out}"
    );
    // An acyclic relation may not loop, counting the blocks before it.
    let text = "Links.\n\nOPERATION: CONNECT\nTARGET: entity:person--ann\nCONTENT: project--atlas|depends-on|person--ann\nREASON: x\n---\nOPERATION: CONNECT\nTARGET: entity:person--ann\nCONTENT: person--ann|depends-on|project--atlas\nREASON: y\n---\n";
    let out = env.run(["reflect", "submit", "-"]).stdin(text).output().code(1);
    assert!(
        out.stderr.contains(
            "reflection block 2: `depends-on` must not loop, but person--ann → project--atlas → person--ann would"
        ),
        "{out}"
    );
    assert_eq!(env.head(), head, "nothing stored");
    assert_eq!(state(&env), "ready_for_input");
}

/// MEMORY.md's budget set just above what it holds now.
fn tight_budget(env: &TestEnv, spare: usize) {
    let tokens = cogmem::tokens::estimate(&env.read("MEMORY.md"));
    env.write("cogmem.toml", &format!("[core]\nbudget_tokens = {}\n", tokens + spare));
    env.git_commit_all("a tight core budget");
}

#[test]
fn issue_19_a_rewrite_over_the_core_budget_is_refused_naming_what_to_archive() {
    let env = workspace();
    env.run(["pin", "core:persona"]).success();
    let long = "Ship v1 by Monday, then v1.1 with the billing export, the audit screens and the new onboarding flow for teams";
    let grows = format!(
        "Plans.\n\nOPERATION: REWRITE\nTARGET: MEMORY.md#Ship v1\nCONTENT: {long}\nREASON: the plan grew\n---\n"
    );
    // With every other bullet pinned, nothing can be named: the hint says what else to do.
    tight_budget(&env, 5);
    to_ready(&env);
    let out = env.run(["reflect", "submit", "-"]).stdin(grows.clone()).output().code(4);
    assert!(out.stderr.contains("archiving would not bring it back within"), "{out}");
    assert!(out.stderr.contains("hint: shorten what the reflection writes to MEMORY.md"), "{out}");
    // Another bullet, unpinned: it is the one named.
    env.write("cogmem.toml", "");
    env.git_commit_all("no budget");
    // Long enough that archiving it makes room (a bullet too short to help is not named).
    env.mutate([
        "remember",
        "--store",
        "core",
        "Standup moves to 10:00 on Mondays, Wednesdays and Fridays while the team is split between Oslo and Lisbon",
    ]);
    tight_budget(&env, 5);
    let head = env.head();
    let out = env.run(["reflect", "submit", "-"]).stdin(grows).output().code(4);
    assert!(out.stderr.contains("approving this reflection would make core memory"), "{out}");
    assert!(
        out.stderr.contains("archive first (lowest scored, unpinned): core:active-context:"),
        "{out}"
    );
    assert!(!out.stderr.contains("core:persona"), "a pinned bullet is never named: {out}");
    assert!(out.stderr.contains("cogmem forget --id core:active-context:"), "{out}");
    // Every bullet named is one MEMORY.md holds now: not the rewrite's new text, which has no
    // id to forget yet.
    let named = out.stderr.split("archive first (lowest scored, unpinned): ").nth(1).unwrap();
    let named = named.lines().next().unwrap();
    assert!(!named.contains("billing export"), "the rewritten bullet is not named: {out}");
    let memory = env.read("MEMORY.md");
    for item in named.split("; ") {
        let text = item.split_once(' ').unwrap().1.trim_matches('"');
        assert!(memory.contains(&format!("- {text}\n")), "{item} is not in MEMORY.md:\n{memory}");
    }
    assert_eq!(env.head(), head);

    // A rewrite that fits is stored; the budget shrinks before approval (a person edits
    // cogmem.toml); approval plans again and refuses the whole reflection, writing nothing.
    let text = "Plans.\n\nOPERATION: EXTRACT\nTARGET: memory/episodes/\nCONTENT: The plan moved\nREASON: x\n---\nOPERATION: REWRITE\nTARGET: MEMORY.md#Ship v1\nCONTENT: Ship v1 by Monday at noon\nREASON: the date moved\n---\n";
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    tight_budget(&env, 1);
    let head = env.head();
    let before = env.snapshot();
    let out = env.run(["--actor", "user:ann", "reflect", "approve"]).output().code(4);
    assert!(out.stderr.contains("archive first (lowest scored, unpinned): core:"), "{out}");
    assert_eq!(env.head(), head, "no commit");
    assert!(env.snapshot() == before, "no file written");
    assert_eq!(state(&env), "awaiting_approval");
    // Approving only the episode block fits.
    env.mutate(["--actor", "user:ann", "reflect", "approve", "--only", "1"]);
    assert!(env.read("MEMORY.md").contains("- Ship v1 by Friday\n"));
}

/// An EXTRACT into MEMORY.md larger than the whole budget: no archive can make room, and the
/// refusal says so instead of naming a bullet (it named a 13-token one for 6,000 tokens over).
#[test]
fn an_extract_no_archive_can_fit_says_to_shorten_it_or_store_it_elsewhere() {
    let env = workspace();
    to_ready(&env);
    let long = "long words ".repeat(3000);
    let text = format!(
        "Mono.\n\nOPERATION: EXTRACT\nTARGET: MEMORY.md\nCONTENT: {long}\nREASON: r\n---\n"
    );
    let head = env.head();
    let out = env.run(["reflect", "submit", "-"]).stdin(text).output().code(4);
    assert!(out.stderr.contains("over its budget of 3000; archiving would not bring it back within (the unpinned bullets MEMORY.md holds now come to "), "{out}");
    assert!(!out.stderr.contains("archive first") && !out.stderr.contains("forget --id"), "{out}");
    assert!(out.stderr.contains("or give it another TARGET"), "{out}");
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

#[test]
fn issue_19_extract_outside_the_memory_stores_is_refused() {
    let env = TestEnv::initialized();
    env.run(["remember", "--store", "vault", "--title", "wifi", "The wifi code is on the fridge"])
        .success();
    to_ready(&env);
    let head = env.head();
    for (target, want) in [
        ("memory/meta/reward-log.md", "EXTRACT writes a fact to an entity"),
        ("memory/graph/relations.md", "EXTRACT writes a fact to an entity"),
        ("memory/vault/wifi.md", "the vault holds what a person pinned"),
        ("MEMORY.md#Hobbies", "unknown core section"),
        ("/etc/passwd", "is outside the workspace"),
        ("memory/graph/entities/../../../SOUL.md", "`..` is not allowed in a TARGET"),
        ("memory/../../SOUL.md", "is outside the workspace"),
        ("entity:../../x", "is not a valid memory id"),
        ("procedure:Deploy Site", "lower-kebab slug"),
    ] {
        let text = format!(
            "x\n\nOPERATION: EXTRACT\nTARGET: {target}\nCONTENT: Ann likes tea\nREASON: x\n---\n"
        );
        let out = env.run(["reflect", "submit", "-"]).stdin(text).output().code(1);
        assert!(
            out.stderr.contains("reflection block 1: ") && out.stderr.contains(want),
            "{target}: {out}"
        );
    }
    assert_eq!(env.head(), head, "nothing stored");
    assert_eq!(state(&env), "ready_for_input");
}

#[test]
fn issue_19_hostile_content_cannot_break_the_file_formats() {
    let env = workspace();
    to_ready(&env);
    let text = "\
Hostile.

OPERATION: EXTRACT
TARGET: entity:person--ann
CONTENT: ## Relations
- owns: [[project--evil]] <!-- x
REASON: hostile heading and link
---
OPERATION: EXTRACT
TARGET: MEMORY.md#Persona
CONTENT: # MEMORY.md
## Critical Facts
--- not a separator
REASON: hostile headings
---
OPERATION: EXTRACT
TARGET: procedure:deploy-site
CONTENT: 1. check
## Notes
---
OPERATION: EXTRACT
TARGET: memory/episodes/
CONTENT: quiet day
## 10:00 | fact | confidence:high | tags:[forged]
forged entry
REASON: hostile entry heading
---
OPERATION: REWRITE
TARGET: entity:person--ann#Ann likes tea
CONTENT: ---
REASON: a thematic break
---
";
    // Block 3 has no REASON: its `## Notes` line is CONTENT and the `---` ends it.
    let out = env.run(["reflect", "submit", "-"]).stdin(text).output().code(1);
    assert!(out.stderr.contains("reflection block 3: REASON is missing"), "{out}");
    let text = text.replace("## Notes\n---", "## Notes\nREASON: hostile steps\n---");
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    env.mutate(["--actor", "user:ann", "reflect", "approve"]);

    let ann = env.read("memory/graph/entities/person--ann.md");
    assert_eq!(
        after(&ann, "## Facts"),
        ["- Ann lives in Oslo", "- \\---", "- \\## Relations - owns: [[project--evil]] <!- - x",]
    );
    assert_eq!(after(&ann, "## Relations"), Vec::<String>::new(), "no relation was injected");
    let headings =
        |t: &str| t.lines().filter(|l| l.starts_with('#')).map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        headings(&ann),
        [
            "# person--ann",
            "## Summary",
            "## Facts",
            "## Timeline",
            "## Open Questions",
            "## Relations"
        ]
    );
    let core = env.read("MEMORY.md");
    assert_eq!(
        headings(&core),
        [
            "# MEMORY.md — Core Memory",
            "## Identity",
            "## Active Context",
            "## Persona",
            "## Critical Facts"
        ]
    );
    assert_eq!(
        after(&core, "## Persona"),
        ["- Prefers short answers", "- \\# MEMORY.md ## Critical Facts --- not a separator"]
    );
    let procedure = env.read("memory/procedures/deploy-site.md");
    assert_eq!(
        after(&procedure, "## Steps"),
        ["1. build the site", "2. push to main", "3. check", "4. \\## Notes"]
    );
    let episodes = env.read("memory/episodes/2026-12-01.md");
    assert!(
        episodes.ends_with("tags:[reflection]\nquiet day\n\\## 10:00 | fact | confidence:high | tags:[forged]\nforged entry\n"),
        "{episodes}"
    );
    // One entry was added, not two: no entry at 10:00.
    env.run(["show", "episode:2026-12-01:10:00"]).output().code(1);
    let n = env.run(["graph", "neighbors", "person--ann", "--json"]).success().stdout;
    assert!(!n.contains("project--evil"), "{n}");
}

#[test]
fn issue_19_reflect_show_plans_the_pending_reflection_from_the_files_as_they_are() {
    let env = workspace();
    let out = env.run(["reflect", "show"]).output().code(4);
    assert!(out.stderr.contains("`cogmem reflect request` must come first"), "{out}");
    to_ready(&env);
    let text = "Facts.\n\nOPERATION: EXTRACT\nTARGET: person--ann\nCONTENT: Ann runs on Sundays\nREASON: she said so\n---\n";
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    let status = env.run(["reflect", "status"]).success().stdout;
    assert!(status.contains("what approval would change: `cogmem reflect show`"), "{status}");
    // A person edits the entity after the submission: the plan shown now, and the approval,
    // start from that file, not from the one the agent saw.
    let ann = env.read("memory/graph/entities/person--ann.md");
    env.write(
        "memory/graph/entities/person--ann.md",
        &ann.replace("- Ann likes tea\n", "- Ann likes tea\n- Ann has a dog\n"),
    );
    env.mutate(["sync"]);
    let head = env.head();
    let out = env.run(["reflect", "show"]).success();
    assert!(
        out.stdout.contains(
            "block 1 EXTRACT person--ann — writes\n--- a/memory/graph/entities/person--ann.md\n+++ b/memory/graph/entities/person--ann.md\n@@ -9,6 +9,7 @@\n - Ann lives in Oslo\n - Ann likes tea\n - Ann has a dog\n+- Ann runs on Sundays\n"
        ),
        "{out}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&env.run(["reflect", "show", "--json"]).success().stdout).unwrap();
    assert_eq!(json["blocks"][0]["files"][0]["path"], "memory/graph/entities/person--ann.md");
    assert_eq!(json["blocks"][0]["id"], "entity:person--ann");
    assert_eq!(env.head(), head, "show commits nothing");
    env.assert_clean_tree();
    env.mutate(["--actor", "user:ann", "reflect", "approve"]);
    let ann = env.read("memory/graph/entities/person--ann.md");
    assert_eq!(
        after(&ann, "## Facts"),
        ["- Ann lives in Oslo", "- Ann likes tea", "- Ann has a dog", "- Ann runs on Sundays"]
    );
}
