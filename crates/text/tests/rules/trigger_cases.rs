//! Case tables for `trigger::classify` and `classify_known`, one per rule family: English
//! imperatives, sentences that only mention a trigger word, forget requests, recall questions,
//! reflections and goodbyes, Japanese request and question endings, and which request wins in a
//! message with several. The current behaviour is the oracle; cases it gets wrong are left out
//! (they belong to the trigger-quality issue), not asserted.

use cogmem_text::trigger::{
    ExtraPhrases, Trigger, TriggerKind, classify, classify_known, classify_lazy,
};

fn detect(input: &str) -> Option<Trigger> {
    classify(input, &ExtraPhrases::default())
}

fn kind(input: &str) -> Option<TriggerKind> {
    detect(input).map(|t| t.kind)
}

/// Checks the kind, the phrase as written and the content of each case.
#[track_caller]
fn check_all(cases: &[(&str, TriggerKind, &str, &str)]) {
    for &(input, want_kind, want_phrase, want_content) in cases {
        let got = detect(input).map(|t| (t.kind, t.phrase, t.content));
        let want = Some((want_kind, want_phrase.to_owned(), want_content.to_owned()));
        assert_eq!(got, want, "input: {input:?}");
    }
}

#[test]
fn english_remember_instructions() {
    use TriggerKind::Remember;
    check_all(&[
        (
            "Remember that the standup moved to 9:30",
            Remember,
            "Remember that",
            "the standup moved to 9:30",
        ),
        ("remember: Bob's birthday is March 3", Remember, "remember:", "Bob's birthday is March 3"),
        (
            "Please remember I'm allergic to peanuts",
            Remember,
            "remember",
            "I'm allergic to peanuts",
        ),
        (
            "ok so, remember that I take the 8:15 train",
            Remember,
            "remember that",
            "I take the 8:15 train",
        ),
        // "that" with a purpose after it points back at what came before (the eleventh stop:
        // the content was "so you can build my shopping lists").
        (
            "my go-to grocery staples are oat milk and rye bread — remember that so you can \
             build my shopping lists",
            Remember,
            "remember that",
            "my go-to grocery staples are oat milk and rye bread",
        ),
        (
            "remember that so many people came to the launch",
            Remember,
            "remember that",
            "so many people came to the launch",
        ),
        (
            "Remember, I'm flying to Tokyo next week",
            Remember,
            "Remember",
            "I'm flying to Tokyo next week",
        ),
        (
            "hey, make a note that the demo is Friday",
            Remember,
            "make a note that",
            "the demo is Friday",
        ),
        ("Note to self: call the bank", Remember, "Note to self:", "call the bank"),
        (
            "Don't forget that Alice starts on Monday",
            Remember,
            "Don't forget that",
            "Alice starts on Monday",
        ),
        (
            "Please don't forget my birthday is on May 5",
            Remember,
            "don't forget",
            "my birthday is on May 5",
        ),
        (
            "Keep in mind that I work remotely on Fridays",
            Remember,
            "Keep in mind that",
            "I work remotely on Fridays",
        ),
        (
            "For future reference, the API key rotates monthly",
            Remember,
            "For future reference",
            "the API key rotates monthly",
        ),
        (
            "Save this: the server is in Frankfurt",
            Remember,
            "Save this:",
            "the server is in Frankfurt",
        ),
        ("remember to buy milk", Remember, "remember to", "buy milk"),
        (
            "important: my passport expires in May",
            Remember,
            "important:",
            "my passport expires in May",
        ),
    ]);
}

/// A trigger word that is not an instruction: a statement about the speaker's memory, a verb
/// in the middle of a sentence, a quotation, or another sense of the word.
#[test]
fn english_mentions_are_not_triggers() {
    let cases = [
        "I remember when we met in Paris",
        "I can't remember where I parked",
        "I don't remember saying that",
        "I'll remember that",
        "We should remember the lessons from the outage",
        "Remember me to your mother",
        "I forgot my keys again",
        "She forgot about the meeting",
        "Forgot to mention: the launch slipped",
        "The mirror reflects light",
        "The report reflects our priorities",
        "Let me reflect on that for a second",
        "He said \"remember that\" in the movie",
        "What's the weather like?",
        "Can you help me write a function?",
        "",
        "   ",
    ];
    for input in cases {
        assert_eq!(kind(input), None, "input: {input:?}");
    }
}

#[test]
fn english_forget_requests() {
    use TriggerKind::Forget;
    check_all(&[
        ("Please forget my old phone number", Forget, "Please forget", "my old phone number"),
        (
            "Forget what I said about the deadline",
            Forget,
            "Forget what I said about",
            "the deadline",
        ),
        ("Never mind what I said about Bob", Forget, "Never mind what I said about", "Bob"),
        ("Delete the note about the gym", Forget, "Delete the note about", "the gym"),
        ("Remove the memory about my old job", Forget, "Remove the memory about", "my old job"),
        ("Stop remembering that I smoke", Forget, "Stop remembering that", "I smoke"),
        ("Don't remember that, it was a joke", Forget, "Don't remember that", ""),
        ("Forget about it", Forget, "Forget about", ""),
        ("Forget it", Forget, "Forget", ""),
    ]);
}

#[test]
fn english_recall_questions() {
    use TriggerKind::Recall;
    check_all(&[
        ("What do you know about me?", Recall, "What do you know about", "me"),
        (
            "What do you remember about the Atlas project?",
            Recall,
            "What do you remember about",
            "the Atlas project",
        ),
        ("Do you remember what I told you about Bob?", Recall, "Do you remember", "Bob"),
        ("What did I tell you about my sister?", Recall, "What did I tell you about", "my sister"),
        (
            "Do you remember the name of that restaurant?",
            Recall,
            "Do you remember",
            "the name of that restaurant",
        ),
    ]);
}

/// "What do you know about X?" is a general-knowledge question unless X is the workspace's own.
#[test]
fn known_entities_make_a_question_a_recall() {
    let extra = ExtraPhrases::default();
    let known = ["atlas".to_owned()];
    let cases = [
        ("what do you know about atlas?", &[][..], None),
        ("what do you know about atlas?", &known[..], Some((TriggerKind::Recall, "atlas"))),
        ("What is Rust?", &known[..], None),
    ];
    for (input, known, want) in cases {
        let got = classify_known(input, &extra, known);
        let got = got.as_ref().map(|t| (t.kind, t.content.as_str()));
        assert_eq!(got, want, "input: {input:?}, known: {known:?}");
    }
}

/// Names asked for lazily give the same answers as names given, on every labelled message, and
/// are asked for only by a question the rules check against them. See: issue 17
#[test]
fn lazy_names_change_nothing_and_are_read_only_when_needed() {
    let extra = ExtraPhrases::default();
    let known: Vec<String> = ["atlas", "bob", "alice", "the garden"].map(str::to_owned).to_vec();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures");
    let mut messages = vec!["what do you know about atlas?".to_owned()];
    for table in ["triggers.tsv", "triggers-heldout.tsv", "triggers-fresh.tsv"] {
        let text = std::fs::read_to_string(format!("{dir}/{table}")).expect("the table");
        messages.extend(
            text.lines()
                .filter(|l| !l.starts_with('#'))
                .filter_map(|l| l.split('\t').nth(1))
                .map(str::to_owned),
        );
    }
    assert!(messages.len() > 100, "{}", messages.len());
    for m in &messages {
        let asked = std::cell::Cell::new(0);
        let load = || {
            asked.set(asked.get() + 1);
            known.clone()
        };
        assert_eq!(
            classify_lazy(m, &extra, &load),
            classify_known(m, &extra, &known),
            "input: {m:?}"
        );
        assert!(asked.get() <= 1, "input: {m:?}");
    }
    for ordinary in
        ["Can you check where the postgres migration stands?", "Remember that I like tea"]
    {
        let asked = std::cell::Cell::new(false);
        let load = || {
            asked.set(true);
            known.clone()
        };
        classify_lazy(ordinary, &extra, &load);
        assert!(!asked.get(), "names read for {ordinary:?}");
    }
}

#[test]
fn reflections_and_goodbyes() {
    use TriggerKind::{Reflect, ReflectSoft};
    check_all(&[
        ("Let's reflect on today", Reflect, "Let's reflect", "today"),
        ("Time to reflect on the week", Reflect, "Time to reflect", "the week"),
        ("Reflect on what we learned", Reflect, "Reflect", "what we learned"),
        ("Goodnight!", ReflectSoft, "Goodnight", ""),
        ("Good night, see you tomorrow", ReflectSoft, "Good night", ""),
        ("That's all for today, thanks", ReflectSoft, "That's all for today", ""),
        ("Bye for now", ReflectSoft, "Bye for now", ""),
        ("I'm done for the day", ReflectSoft, "done for the day", ""),
    ]);
}

#[test]
fn japanese_request_and_question_endings() {
    use TriggerKind::{Forget, Recall, Reflect, ReflectSoft, Remember};
    check_all(&[
        ("明日は雨だと覚えておいて", Remember, "覚えておいて", "明日は雨"),
        ("これを覚えておいてください", Remember, "覚えておいてください", ""),
        ("忘れないで：金曜日にデモがある", Remember, "忘れないで", "金曜日にデモがある"),
        ("メモしておいて：鍵は引き出しの中", Remember, "メモしておいて", "鍵は引き出しの中"),
        ("前の住所は忘れてください", Forget, "忘れてください", "前の住所"),
        ("私の名前を覚えてる？", Recall, "覚えてる", "私の名前"),
        ("佐藤さんについて何を覚えてる？", Recall, "覚えてる", "佐藤さん"),
        ("振り返りをお願い", Reflect, "振り返りをお願い", ""),
        ("今日一日を振り返ろう", Reflect, "振り返ろう", ""),
        ("今日はここまで。おやすみ", ReflectSoft, "今日はここまで", ""),
    ]);
    // The content ends where the request begins; the sentence's own full stop may stay.
    let t = detect("田中さんの誕生日は5月1日です。覚えておいてね").unwrap();
    assert_eq!(
        (t.kind, t.content.trim_end_matches('。')),
        (Remember, "田中さんの誕生日は5月1日です")
    );
    let t = detect("次の会議は火曜日。メモして").unwrap();
    assert_eq!((t.kind, t.content.trim_end_matches('。')), (Remember, "次の会議は火曜日"));
}

/// Plain statements in Japanese (past tense, "I remember…", greetings) are not requests.
#[test]
fn japanese_statements_are_not_triggers() {
    for input in
        ["子供の頃のことはよく覚えている", "宿題を忘れた", "おはよう", "昨日のことを覚えています"]
    {
        assert_eq!(kind(input), None, "input: {input:?}");
    }
}

/// An explicit request wins over a goodbye in the same message, and the earliest request wins.
#[test]
fn priority_between_triggers() {
    let cases = [
        ("Goodnight! Oh, and remember that the keys are under the mat", TriggerKind::Remember),
        ("Remember that Bob likes tea. Goodnight!", TriggerKind::Remember),
        ("Please forget my old number. Good night!", TriggerKind::Forget),
        ("What do you know about me? Bye for now", TriggerKind::Recall),
    ];
    for (input, want) in cases {
        assert_eq!(kind(input), Some(want), "input: {input:?}");
    }
}

/// Extra phrases from `cogmem.toml` work for every kind, at the start of a clause only.
#[test]
fn extra_phrases_for_each_kind() {
    let extra = ExtraPhrases {
        remember: vec!["log this".into()],
        forget: vec!["drop the bit about".into()],
        reflect: vec!["retro time".into()],
        reflect_soft: vec!["signing off".into()],
        recall: vec!["brief me on".into()],
    };
    let cases = [
        ("log this: the gate code is 4321", Some((TriggerKind::Remember, "the gate code is 4321"))),
        ("drop the bit about my old job", Some((TriggerKind::Forget, "my old job"))),
        ("retro time", Some((TriggerKind::Reflect, ""))),
        ("ok, signing off", Some((TriggerKind::ReflectSoft, ""))),
        ("brief me on Atlas", Some((TriggerKind::Recall, "Atlas"))),
        ("please don't log this anywhere", None),
    ];
    for (input, want) in cases {
        let got = classify(input, &extra);
        let got = got.as_ref().map(|t| (t.kind, t.content.as_str()));
        assert_eq!(got, want, "input: {input:?}");
    }
}
