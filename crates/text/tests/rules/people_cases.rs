//! Case tables for people and relations (issue 18): kinship and role words make a person with
//! the relation to the user, in English and Japanese; names the workspace knows are reused;
//! honorifics stay out of names and possessives out of summaries; things named like people are
//! not people. Every relation asserted here is in the template vocabulary.

use cogmem_text::model::EntityId;
use cogmem_text::route::{KnownEntity, RouteContext, route, summarize};

fn ids(input: &str, ctx: &RouteContext) -> Vec<String> {
    route(input, Some("remember"), ctx).entities.iter().map(|e| e.id.clone()).collect()
}

fn rels(input: &str, ctx: &RouteContext) -> Vec<String> {
    route(input, Some("remember"), ctx)
        .relations
        .iter()
        .map(|r| format!("{} {} {}", r.from, r.relation, r.to))
        .collect()
}

fn known(list: &[(&str, &[&str])]) -> RouteContext {
    RouteContext {
        known: list
            .iter()
            .map(|(id, names)| KnownEntity {
                id: EntityId::parse(id).unwrap(),
                names: names.iter().map(|n| (*n).to_owned()).collect(),
            })
            .collect(),
        ..Default::default()
    }
}

/// (input, entity ids, relations)
type Case<'a> = (&'a str, &'a [&'a str], &'a [&'a str]);

fn check(cases: &[Case], ctx: &RouteContext) {
    for &(input, want_ids, want_rels) in cases {
        assert_eq!(ids(input, ctx), want_ids, "ids of {input:?}");
        assert_eq!(rels(input, ctx), want_rels, "relations of {input:?}");
    }
}

#[test]
fn english_kinship_and_roles_name_a_person_with_the_relation_to_the_user() {
    let cases: &[Case] = &[
        (
            "my sister's name is Hana",
            &["person--user", "person--hana"],
            &["person--hana sibling-of person--user"],
        ),
        (
            "my sister Hana lives in Kyoto",
            &["person--user", "person--hana", "place--kyoto"],
            &["person--hana sibling-of person--user", "person--hana lives-in place--kyoto"],
        ),
        (
            "my little brother Tom is a doctor",
            &["person--user", "person--tom"],
            &["person--tom sibling-of person--user"],
        ),
        (
            "Dr. Suzuki is my dentist",
            &["person--user", "person--suzuki"],
            &["person--suzuki serves person--user"],
        ),
        (
            "my dentist is Dr. Suzuki",
            &["person--user", "person--suzuki"],
            &["person--suzuki serves person--user"],
        ),
        (
            "my manager Priya wants weekly updates",
            &["person--user", "person--priya"],
            &["person--priya manages person--user"],
        ),
        (
            "our CTO Alice likes Rust",
            &["person--alice", "tool--rust"],
            &["person--alice colleague-of person--user", "person--alice prefers tool--rust"],
        ),
        ("Kenji is our SRE", &["person--kenji"], &["person--kenji colleague-of person--user"]),
        (
            "my sister lives in Osaka",
            &["person--user", "person--user-sister", "place--osaka"],
            &[
                "person--user-sister sibling-of person--user",
                "person--user-sister lives-in place--osaka",
            ],
        ),
        (
            "my dentist moved to a new clinic",
            &["person--user", "person--user-dentist"],
            &["person--user-dentist serves person--user"],
        ),
        (
            "my mom's birthday is in May",
            &["person--user", "person--user-mother"],
            &["person--user-mother parent-of person--user"],
        ),
        (
            "my son Ken started school",
            &["person--user", "person--ken"],
            &["person--ken child-of person--user"],
        ),
        (
            "my wife Laura loves jazz",
            &["person--user", "person--laura"],
            &["person--laura spouse-of person--user"],
        ),
        (
            "Mika, my best friend, moved to Berlin",
            &["person--user", "person--mika", "place--berlin"],
            &["person--mika friend-of person--user"],
        ),
        // A role used as a modifier names nobody.
        ("my doctor appointment is on Friday", &["person--user"], &[]),
        ("my student loan is paid off", &["person--user"], &[]),
        // "report" and "assistant" more often mean a document and the agent itself.
        ("my report is due Friday", &["person--user"], &[]),
        ("my assistant should answer in French", &["person--user", "concept--french"], &[]),
        (
            "my direct report Kenji is on leave",
            &["person--user", "person--kenji"],
            &["person--kenji reports-to person--user"],
        ),
    ];
    check(cases, &RouteContext::default());
}

#[test]
fn relations_between_named_people() {
    let cases: &[Case] = &[
        (
            "Bob is married to Alice",
            &["person--bob", "person--alice"],
            &["person--bob spouse-of person--alice"],
        ),
        (
            "Hana is Kenji's sister",
            &["person--hana", "person--kenji"],
            &["person--hana sibling-of person--kenji"],
        ),
        (
            "Alice is the mother of Bob",
            &["person--alice", "person--bob"],
            &["person--alice parent-of person--bob"],
        ),
        (
            "Alice is the CTO of Acme",
            &["person--alice", "organization--acme"],
            &["person--alice works-at organization--acme"],
        ),
        (
            "Priya reports to Kenji",
            &["person--priya", "person--kenji"],
            &["person--priya reports-to person--kenji"],
        ),
    ];
    check(cases, &RouteContext::default());
}

#[test]
fn japanese_kinship_and_roles_name_a_person_with_the_relation_to_the_user() {
    let cases: &[Case] = &[
        (
            "妹のハナは京都に住んでいる",
            &["person--ハナ", "place--京都"],
            &["person--ハナ sibling-of person--user", "person--ハナ lives-in place--京都"],
        ),
        (
            "姉は大阪に引っ越した",
            &["person--user-sister", "place--大阪"],
            &[
                "person--user-sister sibling-of person--user",
                "person--user-sister lives-in place--大阪",
            ],
        ),
        (
            "姉は東京で働いている",
            &["person--user-sister"],
            &["person--user-sister sibling-of person--user"],
        ),
        (
            "母の誕生日は五月です",
            &["person--user-mother"],
            &["person--user-mother parent-of person--user"],
        ),
        ("上司の田中さんは厳しい", &["person--田中"], &["person--田中 manages person--user"]),
        ("歯医者の鈴木先生は丁寧です", &["person--鈴木"], &["person--鈴木 serves person--user"]),
        // 私 ("I") names the user as well, as "my" does in English.
        (
            "鈴木先生は私の歯医者です",
            &["person--user", "person--鈴木"],
            &["person--鈴木 serves person--user"],
        ),
        ("ハナは妹です", &["person--ハナ"], &["person--ハナ sibling-of person--user"]),
        ("妹の名前はハナです", &["person--ハナ"], &["person--ハナ sibling-of person--user"]),
        (
            "同僚のケンくんはRustが好き",
            &["person--ケン"],
            &["person--ケン colleague-of person--user"],
        ),
        // Not a name: a common noun after の, or a role inside a longer word.
        (
            "母のケーキは美味しい",
            &["person--user-mother"],
            &["person--user-mother parent-of person--user"],
        ),
        // 母国 ("home country") holds 母 ("mother") but names nobody: the fact is filed under
        // its topic, not a person.
        ("母国は日本です", &["concept--母国"], &[]),
        (
            "祖母は九十歳です",
            &["person--user-grandmother"],
            &["person--user-grandmother grandparent-of person--user"],
        ),
    ];
    check(cases, &RouteContext::default());
}

#[test]
fn known_names_are_matched_first_and_never_retyped() {
    // After "my sister's name is Hana" made person--hana.
    let ctx = known(&[("person--hana", &["hana"])]);
    let cases: &[Case] = &[
        (
            "my sister Hana lives in Kyoto",
            &["person--user", "person--hana", "place--kyoto"],
            &["person--hana sibling-of person--user", "person--hana lives-in place--kyoto"],
        ),
        ("Hana is great", &["person--hana"], &[]),
        ("Hana started a blog about Atlas", &["person--hana", "concept--atlas"], &[]),
    ];
    check(cases, &ctx);
    // When a concept and a person share a name, a role picks the person.
    let ctx = known(&[("concept--hana", &["hana"]), ("person--hana", &["hana"])]);
    assert_eq!(rels("my sister Hana is visiting", &ctx), ["person--hana sibling-of person--user"]);
    // An alias left by `graph rename person--user-sister person--hana` sends "my sister" to Hana.
    let ctx = known(&[("person--hana", &["hana", "person--user-sister"])]);
    assert_eq!(rels("my sister is visiting", &ctx), ["person--hana sibling-of person--user"]);
    // A known name inside a longer one names only the longer one: "Alice Chen" is not also the
    // `person--alice` the workspace knows (both were written).
    let ctx = known(&[("person--alice", &["alice"])]);
    assert_eq!(
        ids("my colleague Alice Chen is vegan", &ctx),
        ["person--user", "person--alice-chen"]
    );
    assert_eq!(
        ids("Alice Chen and Alice had lunch", &ctx),
        ["person--alice", "person--alice-chen"]
    );
    let ctx = known(&[("person--alice", &["alice"]), ("person--alice-chen", &["alice chen"])]);
    assert_eq!(ids("Alice Chen is vegan", &ctx), ["person--alice-chen"]);
    // The user's own name comes from the workspace.
    let ctx = RouteContext {
        user: EntityId::parse("person--sam").unwrap(),
        user_name: "Sam".into(),
        ..Default::default()
    };
    assert_eq!(rels("my dentist is away", &ctx), ["person--sam-dentist serves person--sam"]);
}

#[test]
fn honorifics_and_role_acronyms_are_not_entities() {
    let ctx = RouteContext::default();
    let cases: &[Case] = &[
        ("Dr. Suzuki fixed my tooth", &["person--user", "person--suzuki"], &[]),
        (
            "Mrs. Patel lives in Leeds",
            &["person--patel", "place--leeds"],
            &["person--patel lives-in place--leeds"],
        ),
        ("The SRE team uses Grafana", &["tool--grafana"], &[]),
        ("Priya leads payments", &["person--priya"], &[]),
        ("Priya Sharma joined the team", &["person--priya-sharma"], &[]),
    ];
    check(cases, &ctx);
    for input in ["Kenji is our SRE", "The SRE team uses Grafana", "Dr. Suzuki is my dentist"] {
        let got = ids(input, &ctx);
        assert!(
            !got.iter().any(|id| id == "tool--sre" || id == "concept--dr" || id.ends_with("--dr")),
            "{input:?}: {got:?}"
        );
    }
}

#[test]
fn things_that_are_named_are_not_people() {
    let ctx = RouteContext::default();
    let cases: &[Case] = &[
        ("the printer on floor 2 is called Gutenberg", &["tool--gutenberg"], &[]),
        ("our meeting room is named Everest", &["place--everest"], &[]),
        ("the new app is called Lumen", &["project--lumen"], &[]),
        ("our cat is called Miso", &["concept--miso"], &[]),
        ("a guy called Pat fixed the sink", &["person--pat"], &[]),
        ("I called Bob about the lease", &["person--user", "person--bob"], &[]),
    ];
    check(cases, &ctx);
}

#[test]
fn summaries_keep_possessives_out() {
    let cases = [
        ("Dr. Suzuki is my dentist", "User", "Dr. Suzuki is the user's dentist"),
        ("Dr. Suzuki is my dentist", "Sam", "Dr. Suzuki is Sam's dentist"),
        ("my sister's name is Hana", "User", "User's sister's name is Hana"),
        ("Hana is my sister and my friend", "Sam", "Hana is Sam's sister and Sam's friend"),
        ("I love my dog", "User", "User loves the user's dog"),
    ];
    for (input, user, want) in cases {
        assert_eq!(summarize(input, user), want, "input: {input:?}");
    }
}

/// The role patterns look at a few words around each role word, in any script, and never
/// index into the middle of a character.
#[test]
fn kin_patterns_never_panic_on_odd_input() {
    let ctx = RouteContext::default();
    let inputs = [
        "my sister",
        "my sister's",
        "my sister’s name is Ümit",
        "my sister Ångström-Øre lives in Malmö",
        "Dr.",
        "Dr. ",
        "Mrs. is my",
        "is my sister",
        ", my dentist",
        "my my my sister sister",
        "our CTO",
        "妹",
        "妹の",
        "妹の名前は",
        "は妹です",
        "さんは私の歯医者です",
        "先生は私の歯医者です",
        "田中さん",
        "上司の🙂さん",
        "母のケーキ、父の日、祖母は",
        "my sister 🙂 lives in 東京",
        "the printer is called",
        "called Gutenberg",
        "\u{200b}my sister\u{200b}Hana",
    ];
    for input in inputs {
        let r = route(input, Some("remember"), &ctx);
        for e in &r.entities {
            assert!(EntityId::parse(&e.id).is_ok(), "{input:?}: {}", e.id);
        }
        let _ = summarize(input, "User");
    }
}

/// Pronouns, stop words and days are no entities, and a known name that is also a common word
/// counts only written as a name: "we are out of milk" made `concept--we`, "on Saturdays"
/// `concept--saturdays`, and `tool--go` was linked to "the kids go to bed".
#[test]
fn pronouns_and_common_words_are_no_entities() {
    let none = RouteContext::default();
    for input in [
        "we are out of milk",
        "it is broken",
        "she is tired",
        "there is a leak",
        "everything is fine",
        "nobody likes it",
        "Saturdays are for the kids",
    ] {
        let got = ids(input, &none);
        assert!(got.iter().all(|id| !id.starts_with("concept--")), "{input:?}: {got:?}");
    }
    assert_eq!(ids("I play tennis on Saturdays", &none), ["person--user"]);
    assert_eq!(ids("the staging host is staging-02", &none), ["concept--staging-host"]);
    let ctx = known(&[("tool--go", &["go"]), ("concept--we", &["we"])]);
    assert!(
        ids("the kids go to bed at 8", &ctx).is_empty(),
        "{:?}",
        ids("the kids go to bed at 8", &ctx)
    );
    assert!(!ids("We left early", &ctx).contains(&"concept--we".to_owned()));
    assert_eq!(ids("I write Go every day", &ctx), ["person--user", "tool--go"]);
    let ctx = known(&[("person--bob", &["bob"])]);
    assert_eq!(ids("tell bob the news", &ctx), ["person--bob"]);
}

/// "my name is Sam Rivera" made `person--sam-rivera` beside the user and wrote "User's name is
/// Sam Rivera"; with a colleague `person--sam`, "my name is Sam" landed on the colleague's card;
/// "call me Sam" was stored as said. The user's name is the user's `Name:`.
#[test]
fn the_users_own_name_is_the_users_name_bullet() {
    let sam = known(&[("person--sam", &["sam"])]);
    for (input, ctx, want) in [
        ("my name is Sam Rivera", &RouteContext::default(), "Name: Sam Rivera"),
        ("My name's sam.", &RouteContext::default(), "Name: Sam"),
        ("call me Sam", &RouteContext::default(), "Name: Sam"),
        ("I go by Sam", &sam, "Name: Sam"),
        ("my name is Sam", &sam, "Name: Sam"),
    ] {
        let r = route(input, Some("remember"), ctx);
        assert_eq!(r.summary, want, "input: {input:?}");
        let ids: Vec<&str> = r.entities.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["person--user"], "input: {input:?}");
        assert!(r.stores.contains(&cogmem_text::model::Store::Core), "input: {input:?}");
        assert_eq!(r.entry_type, cogmem_text::model::EntryType::Preference);
    }
    let r = route("call me tomorrow", Some("remember"), &RouteContext::default());
    assert!(!r.summary.starts_with("Name:"), "{}", r.summary);
}

/// "Zoë" typed decomposed (e and a combining diaeresis) made `person--zoe`, apart from
/// `person--zoë`.
#[test]
fn a_name_typed_decomposed_is_read_composed() {
    let none = RouteContext::default();
    assert_eq!(ids("Zoe\u{308} likes tea", &none), ["person--zo\u{eb}"]);
    assert_eq!(route("Zoe\u{308} likes tea", None, &none).summary, "Zo\u{eb} likes tea");
}
