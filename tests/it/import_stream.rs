//! `cogmem import` streams its input in bounded memory (issue 20): the entries built for each
//! day are staged under `.cogmem/import/` whenever they pass `limits.import_buffer_bytes`, so
//! these tests set that to one byte, which flushes after every message, and check that the
//! result is byte for byte what an unbuffered import gives, in one commit, with nothing left
//! behind on failure.

use crate::common::TestEnv;

/// One JSONL message by Ann.
fn message(id: &str, ts: &str, text: &str) -> String {
    crate::common::jsonl_message(ts, "Ann", text, id)
}

/// An unsorted input over three days in which 2026-03-01 comes back after other days.
fn unsorted_input() -> String {
    let mut s = String::new();
    s += &message("a1", "2026-03-01T10:00:00Z", "first of march");
    s += &message("b1", "2026-02-01T09:00:00Z", "first of february");
    s += &message("a2", "2026-03-01T10:00:30Z", "same minute again");
    s += &message("c1", "2026-04-01T08:00:00Z", "april");
    s += &message("b2", "2026-02-01T07:00:00Z", "earlier in the day, later in the file");
    s += &message("a3", "2026-03-01T10:00:00Z", "march comes back");
    s
}

/// A workspace whose imports flush after every message.
fn flushing_env() -> TestEnv {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[limits]\nimport_buffer_bytes = 1\n");
    env.git_commit_all("flush after every message");
    env
}

fn staging_is_empty(env: &TestEnv) -> bool {
    std::fs::read_dir(env.path(".cogmem/import")).map_or(true, |mut d| d.next().is_none())
}

#[test]
fn an_unsorted_input_flushed_per_message_is_the_same_as_one_built_whole() {
    let whole = TestEnv::initialized();
    let flushed = flushing_env();
    for env in [&whole, &flushed] {
        env.write("../talk.jsonl", &unsorted_input());
        let out = env.mutate(["import", "../talk.jsonl"]);
        assert!(
            out.stderr.starts_with("imported 6 messages into 3 days, 0 already there"),
            "{out}"
        );
        assert!(staging_is_empty(env), "the staging folder is emptied");
    }
    for day in ["2026-02-01", "2026-03-01", "2026-04-01"] {
        let rel = format!("memory/episodes/{day}.md");
        assert_eq!(flushed.read(&rel), whole.read(&rel), "{rel}");
    }
    // The day that came back is one file, in input order, with the ids of one minute counted
    // across both of its chunks.
    let march = flushed.read("memory/episodes/2026-03-01.md");
    let order: Vec<usize> = ["first of march", "same minute again", "march comes back"]
        .iter()
        .map(|t| march.find(t).unwrap_or_else(|| panic!("{t} in {march}")))
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{march}");
    let out = flushed.run(["show", "episode:2026-03-01:10:00:3", "--json"]).output().success();
    assert!(out.stdout.contains("march comes back"), "{out}");
    // One audit line per file, each day file written once.
    let lines = flushed.audit_lines();
    let day_lines = lines.iter().filter(|l| l.contains("memory/episodes/2026-03-01.md")).count();
    assert_eq!(day_lines, 1, "{lines:#?}");
}

#[test]
fn a_reimport_adds_nothing_commits_nothing_and_does_not_scan_again() {
    let env = flushing_env();
    let secret = format!("the key is {}{}", "AKIA", "IOSFODNN7EXAMPLE");
    let mut input = unsorted_input();
    input += &message("s1", "2026-04-01T09:00:00Z", &secret);
    env.write("../talk.jsonl", &input);
    let out = env.run(["import", "../talk.jsonl"]).output().code(4);
    assert!(out.stderr.contains("line 7 of [TMP]/ws/../talk.jsonl looks like a secret"), "{out}");
    env.mutate(["import", "--allow-secret", "../talk.jsonl"]);
    let head = env.head();
    // The same file again, without --allow-secret: every message is already there, so none is
    // scanned, nothing is written and no commit is made.
    let out = env.run(["import", "../talk.jsonl", "--json"]).output().success();
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((v["imported"].as_u64(), v["duplicates"].as_u64()), (Some(0), Some(7)), "{out}");
    assert!(v["commit"].is_null(), "{out}");
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
    assert!(staging_is_empty(&env));
    // A new line in the file is scanned as before.
    input += &message("s2", "2026-04-02T09:00:00Z", &secret);
    env.write("../talk.jsonl", &input);
    let out = env.run(["import", "../talk.jsonl"]).output().code(4);
    assert!(out.stderr.contains("line 8 of [TMP]/ws/../talk.jsonl looks like a secret"), "{out}");
    assert_eq!(env.head(), head);
}

/// A line whose id is already imported is a duplicate by its id alone: a changed text, a time
/// that no longer parses, a number id, an escaped id; a line without an id and a bad line whose
/// id is new still go through the whole parse (issue 20: the re-import reads only the id).
/// Sets a file's modification time an hour back: a day file the sources cache may keep.
fn settle(env: &TestEnv, rel: &str) {
    let f = std::fs::File::options().write(true).open(env.path(rel)).expect("open");
    let hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    f.set_modified(hour_ago).expect("set mtime");
}

#[test]
fn the_sources_of_settled_days_are_kept_and_a_day_edited_by_hand_is_read_again() {
    let env = TestEnv::initialized();
    let day = "memory/episodes/2026-03-01.md";
    env.write(
        "../a.jsonl",
        &(message("a1", "2026-03-01T10:00:00Z", "the first")
            + &message("a2", "2026-03-01T11:00:00Z", "the second")),
    );
    env.mutate(["import", "../a.jsonl"]);
    settle(&env, day);
    // The next import reads the settled day from its file and keeps its sources.
    env.write("../b.jsonl", &message("b1", "2026-04-01T10:00:00Z", "april"));
    env.mutate(["import", "../b.jsonl"]);
    let cache = env.read(".cogmem/import-sources.tsv");
    assert!(cache.starts_with("#cogmem-import-sources 1\n"), "{cache}");
    let kept: Vec<&str> = cache.lines().filter(|l| l.starts_with("s\t")).collect();
    assert_eq!(kept.len(), 2, "the settled day's two sources, not April's fresh one: {cache}");
    assert!(cache.contains(&format!("f\t{day}\t")), "{cache}");
    // Imported again: nothing new, from the kept sources, and no commit.
    let out = env.run(["import", "../a.jsonl"]).output().success();
    assert!(out.stderr.contains("imported 0 messages"), "{out}");
    // A hand edit takes the second message out; its file is read again, so importing the
    // file again brings it back, and only it.
    let text = env.read(day);
    let at = text.find("the second").expect("the second entry");
    let start = text[..at].rfind("\n## ").expect("its heading");
    env.write(day, &text[..start + 1]);
    settle(&env, day);
    env.git_commit_all("take the second message out");
    // (The hand commit is adopted first: two commits.)
    let out = env.run(["import", "../a.jsonl"]).output().success();
    assert!(out.stderr.contains("imported 1 message into 1 day, 1 already there"), "{out}");
    assert!(env.read(day).contains("the second"), "{}", env.read(day));
    // A cache that is not one is not read: every day file is read again.
    env.write(".cogmem/import-sources.tsv", "garbage\ns\tnot-a-source\n");
    let out = env.run(["import", "../a.jsonl"]).output().success();
    assert!(out.stderr.contains("imported 0 messages"), "{out}");
}

#[test]
fn issue_20_a_known_id_alone_makes_a_line_a_duplicate() {
    let env = flushing_env();
    let mut input = message("k1", "2026-03-01T10:00:00Z", "first");
    input += "{\"id\":7,\"timestamp\":\"2026-03-01T10:01:00Z\",\"speaker\":\"Ann\",\"text\":\"seven\"}\n";
    env.write("../known.jsonl", &input);
    env.mutate(["import", "../known.jsonl"]);
    let head = env.head();
    let mut again = message("k1", "not a time", "changed text");
    again += "{\"id\":7,\"text\":\"no timestamp at all\"}\n";
    again += "{\"id\":\"k\\u0031\",\"timestamp\":\"2026-03-01T10:00:00Z\",\"speaker\":\"Ann\",\"text\":\"escaped\"}\n";
    again += &message("n1", "not a time", "new and bad");
    env.write("../again.jsonl", &again);
    // Exit 3: a line was skipped.
    let out = env.run(["import", "../again.jsonl", "--json"]).output().code(3);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((v["imported"].as_u64(), v["duplicates"].as_u64()), (Some(0), Some(3)), "{out}");
    let skipped = v["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{out}");
    assert_eq!(skipped[0]["line"], 4, "{out}");
    assert!(v["commit"].is_null(), "{out}");
    assert_eq!(env.head(), head);
    env.assert_clean_tree();
}

#[test]
fn stdin_is_streamed_and_its_messages_are_named_by_line() {
    let env = flushing_env();
    let input = "{\"timestamp\":\"2026-05-01T10:00:00Z\",\"speaker\":\"Ann\",\"text\":\"no id here\"}\n\
                 {\"timestamp\":\"2026-05-02\",\"speaker\":\"Bo\",\"text\":\"a date only\"}\n";
    let out = env.run(["import", "-"]).stdin(input).output().success();
    assert!(out.stderr.starts_with("imported 2 messages into 2 days"), "{out}");
    assert!(env.read("memory/episodes/2026-05-01.md").contains("<!-- source: stdin:1 -->"));
    assert!(env.read("memory/episodes/2026-05-02.md").contains("<!-- source: stdin:2 -->"));
    let count = env.commit_count();
    let out = env.run(["import", "-"]).stdin(input).output().success();
    assert!(out.stderr.starts_with("imported 0 messages into 0 days, 2 already there"), "{out}");
    assert_eq!(env.commit_count(), count);
}

#[test]
fn a_bad_line_after_flushes_names_its_line_and_strict_leaves_nothing() {
    let env = flushing_env();
    let mut input = unsorted_input();
    input += "{\"timestamp\":\"2026-03-01T11:00:00Z\",\"speaker\":\"Ann\"}\n";
    input += &message("z1", "2026-03-01T12:00:00Z", "after the bad line");
    env.write("../talk.jsonl", &input);
    let before = env.snapshot();
    let count = env.commit_count();
    let out = env.run(["import", "--strict", "../talk.jsonl"]).output().code(1);
    assert!(out.stderr.starts_with("error: [TMP]/ws/../talk.jsonl:7: missing `text`"), "{out}");
    assert_eq!(env.commit_count(), count);
    assert!(env.snapshot() == before, "nothing written");
    env.assert_clean_tree();
    assert!(staging_is_empty(&env), "no staged day left behind");
    // Without --strict the line is reported and skipped, the rest committed once.
    let out = env.run(["import", "../talk.jsonl"]).output().code(3);
    assert!(
        out.stderr.contains("warning: skipped [TMP]/ws/../talk.jsonl:7: missing `text`"),
        "{out}"
    );
    assert!(out.stderr.starts_with("imported 7 messages into 3 days"), "{out}");
    assert_eq!(env.commit_count(), count + 1);
    env.assert_clean_tree();
    // Input that stops being UTF-8 half-way fails naming the file and the byte, and writes
    // nothing.
    let mut bytes = message("u1", "2026-06-01T10:00:00Z", "fine").into_bytes();
    let offset = bytes.len() + 4;
    bytes.extend_from_slice(b"{\"id\xff\":1}\n");
    std::fs::write(env.path("../bad.jsonl"), &bytes).unwrap();
    let before = env.snapshot();
    let out = env.run(["import", "../bad.jsonl"]).output().code(1);
    assert!(out.stderr.contains("bad.jsonl"), "{out}");
    assert!(out.stderr.contains(&offset.to_string()), "{out}");
    assert!(env.snapshot() == before, "nothing written");
    assert!(staging_is_empty(&env));
}

#[test]
fn a_line_longer_than_the_file_limit_is_a_bad_line() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[limits]\nfile_bytes = 8192\n");
    env.git_commit_all("small files");
    let mut input = message("l1", "2026-07-01T10:00:00Z", "short");
    input += &message("l2", "2026-07-01T10:01:00Z", &"long ".repeat(2000));
    input += &message("l3", "2026-07-01T10:02:00Z", "short again");
    env.write("../long.jsonl", &input);
    let out = env.run(["import", "../long.jsonl"]).output().code(3);
    assert!(
        out.stderr.contains("warning: skipped [TMP]/ws/../long.jsonl:2: longer than 8192 bytes"),
        "{out}"
    );
    assert!(out.stderr.starts_with("imported 2 messages into 1 day"), "{out}");
}

/// An import that would make one day's file larger than `limits.file_bytes` (which every
/// command reads day files by) is refused before its commit, naming the file and the setting,
/// and leaves the workspace as it was; as many messages over four days import.
#[test]
fn a_day_over_the_file_limit_is_refused_and_nothing_is_imported() {
    let env = TestEnv::initialized();
    env.write("cogmem.toml", "[limits]\nfile_bytes = 8192\nimport_buffer_bytes = 1024\n");
    env.git_commit_all("small files");
    let text = "a line of a long day about the deploy window and the backup";
    let mut one_day = String::new();
    let mut four_days = String::new();
    for i in 0..120 {
        let at = format!("2026-07-01T{:02}:{:02}:00Z", 8 + i / 60, i % 60);
        one_day += &message(&format!("d{i}"), &at, text);
        let at = format!("2026-07-{:02}T10:{:02}:00Z", 1 + i / 30, i % 30);
        four_days += &message(&format!("t{i}"), &at, text);
    }
    env.write("../long-day.jsonl", &one_day);
    env.write("../four-days.jsonl", &four_days);
    let before = env.snapshot();
    let count = env.commit_count();
    let out = env.run(["import", "../long-day.jsonl"]).output().code(1);
    assert!(out.stderr.contains("memory/episodes/2026-07-01.md larger than 8192 bytes"), "{out}");
    assert!(out.stderr.contains("`limits.file_bytes`"), "{out}");
    assert_eq!(env.commit_count(), count, "no commit");
    assert!(env.snapshot() == before, "no workspace file touched");
    assert!(staging_is_empty(&env));
    env.assert_clean_tree();
    let out = env.mutate(["import", "../four-days.jsonl"]);
    assert!(out.stderr.starts_with("imported 120 messages into 4 days"), "{out}");
}

/// Killed after its first flush, an import leaves the workspace exactly as it was (its staged
/// days are outside the tree), and the next import clears them and imports everything.
#[cfg(feature = "crash-points")]
#[test]
fn a_killed_import_after_a_flush_leaves_the_workspace_as_it_was() {
    let env = flushing_env();
    env.write("../talk.jsonl", &unsorted_input());
    let before = env.snapshot();
    let count = env.commit_count();
    let now = crate::crash::tick(&env);
    let args = ["import", "../talk.jsonl"];
    let mut child =
        crate::crash::spawn(&env, &args, &now, &[("COGMEM_CRASH_AT", "import-flush")], None);
    let status = child.wait().unwrap();
    assert!(!status.success(), "killed at the flush: {status:?}");
    assert!(!staging_is_empty(&env), "it was killed with a staged day");
    assert_eq!(env.commit_count(), count);
    assert!(env.snapshot() == before, "no workspace file touched");
    env.assert_clean_tree();
    // Only the dead process's lock record is left, which the next command takes over.
    let out = env.run(["verify"]).output().code(3);
    assert!(out.stdout.contains("1 finding"), "{out}");
    assert!(out.stdout.contains("left behind by process"), "{out}");
    let out = env.mutate(["import", "../talk.jsonl"]);
    assert!(out.stderr.starts_with("imported 6 messages into 3 days"), "{out}");
    assert!(staging_is_empty(&env));
}

/// A bad line is reported with the file and the line, as `path:line`, and a number where the
/// time should be is said to need a string (RFC 3339), not reported as a missing `timestamp`.
#[test]
fn a_skipped_line_names_the_file_and_a_numeric_timestamp_is_said_to_need_a_string() {
    let env = TestEnv::initialized();
    let input = format!(
        "{}{}",
        message("n1", "2026-04-01T09:00:00Z", "fine"),
        "{\"id\":\"n2\",\"timestamp\":1764374400,\"speaker\":\"Ann\",\"text\":\"epoch\"}\n"
    );
    env.write("../epoch.jsonl", &input);
    let out = env.run(["import", "../epoch.jsonl"]).output().code(3);
    assert!(
        out.stderr.contains(
            "warning: skipped [TMP]/ws/../epoch.jsonl:2: `timestamp` must be a string: an RFC 3339 time"
        ),
        "{out}"
    );
    assert!(!out.stderr.contains("missing `timestamp`"), "{out}");
    let out = env.run(["import", "--strict", "-"]).stdin(input.as_str()).output().code(1);
    assert!(out.stderr.starts_with("error: <stdin>:2: `timestamp` must be a string"), "{out}");
}
