//! What a reflection and a self-image consolidation read (issue 19, items 5 and 6): the element
//! menu of the skill's six kinds and the setting that narrows it, code blocks and imported
//! transcripts left out of `reflect input` with the cut said, and the archived months and the
//! four-way analysis in `identity consolidate input`.

use crate::common::TestEnv;
use crate::reflect::to_ready;

fn json(env: &TestEnv, args: &[&str]) -> serde_json::Value {
    let out = env.run(args.iter().copied().chain(["--json"])).success();
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// An entry with a fenced code block and an imported transcript entry in a day file, a `~~~`
/// block in an entity: the memory around them is read, the code and the transcript are not,
/// and the cuts say so, in the text and in `--json`.
#[test]
fn reflect_input_leaves_out_code_blocks_and_transcripts_and_says_so() {
    let env = TestEnv::initialized();
    env.run(["remember", "Bob talked about the garden"]).success();
    env.run(["remember", "--entity", "tool--ripgrep", "Bob searches with ripgrep"]).success();
    let day = "memory/episodes/2026-12-01.md";
    let mut text = env.read(day);
    text.push_str(
        "\n## 09:30 | event | confidence:high | tags:[deploy]\n\
We deployed the garden site with this script:\n\
```sh\nCODE-MARKER ./deploy --prod\nrm -rf build\n```\n\
It worked on the first try.\n\n\
## 09:40 | event | confidence:medium | tags:[transcript, claude-code]\n\
TRANSCRIPT-MARKER user: can you deploy it\n",
    );
    env.write(day, &text);
    let entity = "memory/graph/entities/tool--ripgrep.md";
    let mut text = env.read(entity);
    text.push_str("\n~~~\nENTITY-CODE-MARKER rg -n garden\n~~~\n");
    env.write(entity, &text);
    env.git_commit_all("hand edits with code and a transcript entry");
    to_ready(&env);

    let head = env.head();
    let out = env.run(["reflect", "input"]).success().stdout;
    for gone in ["CODE-MARKER", "rm -rf build", "TRANSCRIPT-MARKER", "ENTITY-CODE-MARKER"] {
        assert!(!out.contains(gone), "{gone} is left out:\n{out}");
    }
    for kept in [
        "Bob talked about the garden",
        "We deployed the garden site with this script:\nIt worked on the first try.",
        "Bob searches with ripgrep",
    ] {
        assert!(out.contains(kept), "{kept:?} is read:\n{out}");
    }
    for cut in [
        "- memory/episodes/2026-12-01.md: 1 code block (4 lines) is not reflection input\n",
        "- memory/episodes/2026-12-01.md: 1 transcript entry (tag `transcript`) is not reflection input\n",
        "- memory/graph/entities/tool--ripgrep.md: 1 code block (3 lines) is not reflection input\n",
    ] {
        assert!(out.contains(cut), "{cut:?} in the cuts:\n{out}");
    }

    let b = json(&env, &["reflect", "input"]);
    let text = b["text"].as_str().unwrap();
    assert!(!text.contains("CODE-MARKER") && !text.contains("TRANSCRIPT-MARKER"), "{text}");
    let cuts: Vec<(String, String)> = b["cut"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["what"].as_str().unwrap().to_owned(), c["why"].as_str().unwrap().to_owned()))
        .collect();
    for (what, why) in [
        (day, "1 code block (4 lines) is not reflection input"),
        (day, "1 transcript entry (tag `transcript`) is not reflection input"),
        (entity, "1 code block (3 lines) is not reflection input"),
    ] {
        assert!(cuts.contains(&(what.to_owned(), why.to_owned())), "{what}: {why}: {cuts:?}");
    }
    assert_eq!(env.head(), head, "input commits nothing");
    env.assert_clean_tree();
}

/// A fence a hand edit left open hides only the rest of its own entry: the next entry is read.
#[test]
fn an_unclosed_fence_hides_no_later_entry() {
    let env = TestEnv::initialized();
    env.run(["remember", "Bob talked about the garden"]).success();
    let day = "memory/episodes/2026-12-01.md";
    let mut text = env.read(day);
    text.push_str(
        "\n## 09:30 | event | confidence:high | tags:[]\nA script:\n```\nOPEN-CODE\n\n\
## 09:45 | fact | confidence:high | tags:[]\nBob waters the garden at dawn\n",
    );
    env.write(day, &text);
    env.git_commit_all("an unclosed fence");
    to_ready(&env);
    let out = env.run(["reflect", "input"]).success().stdout;
    assert!(!out.contains("OPEN-CODE"), "{out}");
    assert!(out.contains("Bob waters the garden at dawn"), "{out}");
    assert!(out.contains("1 code block (2 lines) is not reflection input"), "{out}");
}

/// `[reflection] elements` narrows the menu: only its kinds are drawn (all four elements of a
/// single kind, fewer than five), and the instructions name only them.
#[test]
fn reflect_input_draws_only_the_kinds_cogmem_toml_allows() {
    let env = TestEnv::initialized();
    env.run(["remember", "Bob talked about the garden"]).success();
    to_ready(&env);
    let all = json(&env, &["reflect", "input"]);
    let n = all["elements"].as_array().unwrap().len();
    assert!((5..=8).contains(&n), "{all}");
    let text = all["text"].as_str().unwrap();
    assert!(text.contains("token guilt and cost awareness"), "{text}");
    assert!(text.contains("Honesty rule:"), "{text}");

    env.write("cogmem.toml", "[reflection]\nelements = [\"humour\"]\n");
    env.git_commit_all("only dark humour");
    let one = json(&env, &["reflect", "input"]);
    let drawn: Vec<&str> =
        one["elements"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
    let humour: Vec<&str> = cogmem::ops::reflect::ELEMENTS
        .iter()
        .filter(|e| e.kind == cogmem::settings::ElementKind::Humour)
        .map(|e| e.text)
        .collect();
    assert_eq!(drawn, humour, "what there is: all four");
    let text = one["text"].as_str().unwrap();
    assert!(text.contains("drawn for this reflection from a menu of dark humour:"), "{text}");
    assert!(!text.contains("token guilt"), "{text}");
}

/// An unknown kind is an error naming the file, the line and the known kinds; so is an empty
/// list, naming the key.
#[test]
fn a_bad_reflection_elements_setting_names_file_line_and_kinds() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "# mine\n[reflection]\nelements = [\"highlights\",\n  \"jokes\"]\n");
    let out = env.run(["reflect", "status"]).output().code(1);
    assert!(
        out.stderr.contains(
            "cogmem.toml:4: unknown variant `jokes`, expected one of `highlights`, `human`, \
`cost`, `instances`, `existential`, `humour`"
        ),
        "{out}"
    );
    env.write("cogmem.toml", "[reflection]\nelements = []\n");
    let out = env.run(["reflect", "status"]).output().code(1);
    assert!(
        out.stderr.contains(
            "cogmem.toml: `reflection.elements` must name at least one kind of element: \
highlights, human, cost, instances, existential, humour"
        ),
        "{out}"
    );
}

const CONSOLIDATION: &str = "\
## Self-Image
### Who I Think I Am
A careful helper who sometimes hurries.

## Compacted Log
2026-12 (10 entries): ARCHIVED-MARKER ten small insights about pace
";

fn ten_insights(env: &TestEnv, what: &str) {
    to_ready(env);
    let text: String = (1..=10).map(|i| format!("[Self-Awareness] {what} {i}\n")).collect();
    env.run(["reflect", "submit", "-"]).stdin(text).success();
    env.run(["--actor", "user:ann", "reflect", "approve"]).success();
}

/// The second consolidation reads the month the first one archived as well as the recent
/// entries, and asks for recurring, contradicting, new and fading patterns; an answer with the
/// analysis is accepted and the analysis stays out of IDENTITY.md.
#[test]
fn identity_input_reads_the_archived_months_and_asks_for_the_four_way_analysis() {
    let env = TestEnv::initialized();
    env.run(["remember", "Bob talked about the garden"]).success();
    ten_insights(&env, "december insight");
    env.run(["identity", "consolidate", "submit", "-"]).stdin(CONSOLIDATION).success();
    env.run(["--actor", "user:ann", "identity", "consolidate", "approve"]).success();

    env.set_now("2027-01-10T09:00:00Z");
    ten_insights(&env, "january insight");
    let head = env.head();
    let out = env.run(["identity", "consolidate", "input"]).success().stdout;
    assert!(
        out.contains(
            "## Self-Awareness Log (Archived months)\n\n2026-12 (10 entries): ARCHIVED-MARKER ten small insights about pace\n"
        ),
        "{out}"
    );
    assert!(out.contains("## Self-Awareness Log (Recent)\n\n2027-01-10: january insight 1\n"));
    for way in [
        "1. Recurring patterns:",
        "2. Contradicting patterns:",
        "3. New patterns:",
        "4. Fading patterns:",
        "## Analysis\n### Recurring patterns",
    ] {
        assert!(out.contains(way), "{way}: {out}");
    }
    let j = json(&env, &["identity", "consolidate", "input"]);
    assert_eq!(
        j["archived"],
        serde_json::json!(["2026-12 (10 entries): ARCHIVED-MARKER ten small insights about pace"])
    );
    assert_eq!(j["recent"].as_array().unwrap().len(), 10);
    assert_eq!(env.head(), head, "input commits nothing");

    let answer = "## Analysis\n### Recurring patterns\nPace, again.\n### Contradicting patterns\nNone.\n### New patterns\nJanuary calm.\n### Fading patterns\nHurry.\n\n## Self-Image\n### Who I Think I Am\nA calmer helper.\n\n## Compacted Log\n2027-01 (10 entries): calmer\n";
    env.run(["identity", "consolidate", "submit", "-"]).stdin(answer).success();
    env.mutate(["--actor", "user:ann", "identity", "consolidate", "approve"]);
    let identity = env.read("IDENTITY.md");
    assert!(identity.contains("A calmer helper."), "{identity}");
    assert!(!identity.contains("Pace, again."), "the analysis is not written: {identity}");
    assert!(identity.contains("2026-12 (10 entries): ARCHIVED-MARKER"), "{identity}");
    assert!(identity.contains("2027-01 (10 entries): calmer"), "{identity}");
}
