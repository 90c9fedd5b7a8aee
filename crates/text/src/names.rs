//! Names in a message (issue 22): the people, places, organisations, events and things a
//! message names, read without a model, so that `import` and `remember` can link an entry to
//! the entities it is about.
//!
//! A name is a run of capitalised words ("Pride Parade", "Sweden"), a possessive `'s` dropped
//! and the run ended there, greetings and common words dropped from its start ("Hey Caroline"
//! is "Caroline", "The Grand Canyon" is "Grand Canyon"). One occurrence says little: a word
//! at the start of a sentence has a capital anyway. So the rules here are of two kinds:
//!
//! - [`occurrences`] reads one text: each name, whether it stands at the start of a sentence,
//!   and the word before it ("in", "to", "visited" mark a place);
//! - [`is_name`] and [`kind`] judge a name from what a body of messages says about it
//!   ([`Seen`]): kept when it is named in at least two messages, at least once in the middle of
//!   a sentence, and (one word) not as often written in lower case as capitalised mid-sentence
//!   ("Here", "Wow" are words, not names). [`confident`] judges a name met once, for a single
//!   `remember`: only what its own sentence makes clear.
//!
//! The counting itself belongs to the caller (an import counts over its messages and the
//! entities the workspace knows). The rules port the benchmark prototype
//! `benches/retrieval/entities.py`.
//!
//! Invariant: pure and bounded; a name is at most [`MAX_WORDS`] words and [`MAX_NAMES`] names
//! are read per text. English capitalisation only: a text in a script without capitals (CJK)
//! names nothing here.

use crate::date::relative::is_calendar_word;
use crate::kin;
use crate::stopword::{self, Tier};

/// The most words a name may have; a longer capitalised run is a title or shouting.
pub const MAX_WORDS: usize = 4;
/// The most names read from one text.
pub const MAX_NAMES: usize = 32;

/// Words written with a capital that never start a name: the pronoun, greetings and
/// interjections (lower case).
const NOT_NAMES: &[&str] = &[
    "i",
    "i'm",
    "i've",
    "i'll",
    "i'd",
    "im",
    "ive",
    "ill",
    "id",
    "oh",
    "hey",
    "hi",
    "hello",
    "wow",
    "yeah",
    "yes",
    "no",
    "ok",
    "okay",
    "thanks",
    "thank",
    "aww",
    "aw",
    "awesome",
    "cool",
    "great",
    "nice",
    "sure",
    "haha",
    "hahaha",
    "hmm",
    "um",
    "uh",
    "ah",
    "omg",
    "lol",
    "bye",
    "congrats",
    "congratulations",
    "btw",
    "yep",
    "yup",
    "nope",
    "dear",
    "ugh",
    "whoa",
    "yay",
    "sorry",
    "please",
    "wait",
    "well",
    "anyway",
    "also",
    "so",
    "but",
    "and",
    "or",
    "good",
    "morning",
    "evening",
    "night",
    "happy",
    "amazing",
    "love",
    "lovely",
    "totally",
    "exactly",
    "absolutely",
    "definitely",
    "really",
    "maybe",
];

/// Words before a name that make it a place ("in Sweden", "visited Paris").
const PLACE_CUES: &[&str] = &["in", "to", "from", "at", "near", "around", "visit", "visited"];

/// Words before "to" or "at" that make the name after them someone spoken, written or given to,
/// not a place ("talked to Hana", "wrote to Bob", "waved at Kenji").
const TO_SOMEONE: &[&str] = &[
    "talk",
    "talked",
    "talking",
    "talks",
    "speak",
    "spoke",
    "speaking",
    "said",
    "say",
    "says",
    "saying",
    "hi",
    "hello",
    "goodbye",
    "bye",
    "wrote",
    "write",
    "writes",
    "writing",
    "sent",
    "send",
    "sends",
    "sending",
    "explained",
    "explain",
    "mentioned",
    "mention",
    "replied",
    "reply",
    "listened",
    "listen",
    "listening",
    "gave",
    "give",
    "gives",
    "showed",
    "show",
    "introduced",
    "introduce",
    "emailed",
    "email",
    "texted",
    "text",
    "messaged",
    "message",
    "chatted",
    "chat",
    "complained",
    "complain",
    "apologized",
    "apologised",
    "apologize",
    "apologise",
    "lent",
    "lend",
    "handed",
    "hand",
    "passed",
    "sold",
    "sell",
    "waved",
    "wave",
    "smiled",
    "smile",
    "yelled",
    "shouted",
    "married",
    "engaged",
    "related",
    "belongs",
    "belonged",
    "thanks",
    "report",
    "reports",
    "reported",
    "reporting",
];

/// Last words that make a name an event ("Pride Parade", "Boston Marathon").
const EVENT_WORDS: &[&str] = &[
    "parade",
    "festival",
    "conference",
    "concert",
    "fair",
    "marathon",
    "championship",
    "cup",
    "summit",
    "party",
    "wedding",
    "ceremony",
    "expo",
    "tournament",
    "gala",
    "olympics",
    "con",
    "race",
    "retreat",
    "workshop",
    "hackathon",
];

/// Last words that make a name an organisation ("Acme Inc", "Stanford University").
const ORGANISATION_WORDS: &[&str] = &[
    "inc",
    "corp",
    "corporation",
    "company",
    "co",
    "ltd",
    "llc",
    "gmbh",
    "university",
    "college",
    "school",
    "academy",
    "institute",
    "bank",
    "hospital",
    "clinic",
    "church",
    "club",
    "team",
    "association",
    "foundation",
    "society",
    "group",
    "agency",
    "council",
    "department",
    "museum",
    "library",
    "center",
    "centre",
    "shelter",
    "studio",
    "labs",
    "network",
];

/// One name as a text writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    /// The name, its words separated by one space.
    pub name: String,
    /// Whether it stands at the start of a sentence (or of the text, a line, a quote).
    pub initial: bool,
    /// Whether the word before it (past "the", "a") marks a place: "in", "to", "visited"….
    pub after_place_cue: bool,
}

/// What a body of messages says about one name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Seen {
    /// Messages that name it.
    pub messages: u32,
    /// Its occurrences.
    pub times: u32,
    /// Its occurrences in the middle of a sentence.
    pub mid_sentence: u32,
    /// Its occurrences after a place cue.
    pub after_place_cue: u32,
}

impl Seen {
    /// Counts one message's occurrences of the name (`occurrences` all of the same name).
    pub fn add<'a>(&mut self, occurrences: impl IntoIterator<Item = &'a Occurrence>) {
        let mut any = false;
        for o in occurrences {
            any = true;
            self.times += 1;
            self.mid_sentence += u32::from(!o.initial);
            self.after_place_cue += u32::from(o.after_place_cue);
        }
        self.messages += u32::from(any);
    }
}

/// A word of a text with its byte range and the punctuation around it.
struct Word<'t> {
    /// The word without the punctuation around it.
    core: &'t str,
    /// Punctuation before it (quotes, brackets).
    lead: &'t str,
    /// Punctuation after it.
    trail: &'t str,
    /// Whether a line break went before it.
    new_line: bool,
}

/// Splits a text into words, leaving out inline code, bracketed captions (`[image: …]`),
/// links and addresses.
fn words(text: &str) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut skip_until: Option<char> = None;
    let mut new_line = true;
    for raw in text.split_inclusive(char::is_whitespace) {
        let raw_trim = raw.trim_end();
        let ends_line = raw.ends_with('\n');
        if let Some(close) = skip_until {
            if raw_trim.contains(close) {
                skip_until = None;
            }
            new_line = ends_line;
            continue;
        }
        if raw_trim.is_empty() {
            new_line |= ends_line;
            continue;
        }
        if let Some(open) = raw_trim.chars().next().filter(|c| matches!(c, '[' | '`')) {
            let close = if open == '[' { ']' } else { '`' };
            if !raw_trim[1..].contains(close) {
                skip_until = Some(close);
            }
            new_line = ends_line;
            continue;
        }
        let is_core = |c: char| c.is_alphanumeric() || matches!(c, '\'' | '’' | '-');
        let start = raw_trim.find(is_core).unwrap_or(raw_trim.len());
        let end = raw_trim
            .rfind(is_core)
            .map_or(start, |i| i + raw_trim[i..].chars().next().map_or(0, char::len_utf8));
        let core = raw_trim[start..end.max(start)].trim_matches(['\'', '’', '-']);
        let odd = raw_trim.contains("://") || raw_trim.contains('@') || raw_trim.contains('/');
        out.push(Word {
            core: if odd { "" } else { core },
            lead: &raw_trim[..start],
            trail: &raw_trim[end.max(start)..],
            new_line,
        });
        new_line = ends_line;
    }
    out
}

/// Whether a word may be part of a name: a capital first, letters (and `'`, `-`) only.
fn capitalised(w: &str) -> bool {
    let mut chars = w.chars();
    chars.next().is_some_and(char::is_uppercase)
        && w.chars().all(|c| c.is_alphabetic() || matches!(c, '\'' | '’' | '-'))
}

/// Whether a word never starts a name: the pronoun, a greeting, a common word, a day or a month.
fn never_first(lower: &str) -> bool {
    NOT_NAMES.contains(&lower)
        || stopword::is_english(lower, Tier::Topic)
        || is_calendar_word(lower)
        || kin::is_honorific(lower)
}

/// The word without a possessive `'s`, and whether it had one.
fn possessive(w: &str) -> (&str, bool) {
    for s in ["'s", "’s"] {
        if let Some(base) = w.strip_suffix(s) {
            return (base, true);
        }
    }
    (w, false)
}

/// The names `text` writes, in order, at most [`MAX_NAMES`].
pub fn occurrences(text: &str) -> Vec<Occurrence> {
    let words = words(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() && out.len() < MAX_NAMES {
        if !capitalised(words[i].core) {
            i += 1;
            continue;
        }
        // The run: capitalised words with nothing but spaces between them.
        let mut j = i;
        while j + 1 < words.len()
            && words[j].trail.is_empty()
            && words[j + 1].lead.is_empty()
            && !words[j + 1].new_line
            && capitalised(words[j + 1].core)
            && !possessive(words[j].core).1
        {
            j += 1;
        }
        // Greetings and common words before the name are not part of it.
        let mut first = i;
        while first <= j && never_first(&possessive(words[first].core).0.to_lowercase()) {
            first += 1;
        }
        let run: Vec<&str> =
            (first..=j).map(|k| possessive(words[k].core).0).filter(|w| !w.is_empty()).collect();
        if !run.is_empty() && run.len() <= MAX_WORDS && run.iter().all(|w| w.chars().count() >= 2) {
            out.push(Occurrence {
                name: run.join(" "),
                initial: starts_sentence(&words, first),
                after_place_cue: after_place_cue(&words, first),
            });
        }
        i = j + 1;
    }
    out
}

/// Whether word `at` starts a sentence: the first of the text or of a line, or after `.`,
/// `!`, `?`, `…`, `:`, `;` or an opening quote or bracket (not after "Dr.").
fn starts_sentence(words: &[Word<'_>], at: usize) -> bool {
    let w = &words[at];
    if at == 0 || w.new_line || !w.lead.is_empty() {
        return true;
    }
    let prev = &words[at - 1];
    if kin::is_honorific(prev.core) && prev.trail == "." {
        return false;
    }
    prev.core.is_empty() || prev.trail.contains(['.', '!', '?', '…', ':', ';'])
}

/// Whether the word before word `at` (past "the", "a", "an"), in the same clause, is a place
/// cue.
fn after_place_cue(words: &[Word<'_>], at: usize) -> bool {
    let mut k = at;
    while k > 0 && words[k].lead.is_empty() {
        k -= 1;
        let w = &words[k];
        if !w.trail.is_empty() {
            return false;
        }
        let lower = w.core.to_lowercase();
        if !matches!(lower.as_str(), "the" | "a" | "an") {
            // "talked to Hana", "waved at Kenji": someone, not somewhere.
            let to_someone = matches!(lower.as_str(), "to" | "at")
                && k > 0
                && words[k].lead.is_empty()
                && words[k - 1].trail.is_empty()
                && TO_SOMEONE.contains(&words[k - 1].core.to_lowercase().as_str());
            return PLACE_CUES.contains(&lower.as_str()) && !to_someone;
        }
    }
    false
}

/// Words that mark a technology name (typed `tool`). A job title written as an acronym
/// ("SRE") is a role, not a tool.
pub fn looks_like_tool(name: &str) -> bool {
    if kin::is_role_acronym(name) {
        return false;
    }
    let lower = name.to_lowercase();
    let inner_cap = name.chars().skip(1).any(char::is_uppercase) && !name.contains(' ');
    let tech =
        ["script", "sql", "db", "js", "lang", "code", "hub", "lab", "api", "sdk", "kit", "ql"];
    inner_cap
        || name.chars().any(|c| c.is_ascii_digit())
        || tech.iter().any(|t| lower.ends_with(t))
        || matches!(
            lower.as_str(),
            "rust"
                | "python"
                | "go"
                | "java"
                | "docker"
                | "kubernetes"
                | "postgres"
                | "linux"
                | "vim"
                | "emacs"
                | "git"
                | "slack"
                | "notion"
                | "figma"
                | "excel"
                | "terraform"
                | "react"
                | "vue"
                | "svelte"
                | "redis"
                | "kafka"
                | "swift"
                | "kotlin"
                | "ruby"
                | "rails"
                | "django"
                | "flask"
                | "node"
        )
}

/// Tells whether the words around a capitalised name say it is someone: a verb people do
/// after it ("Bob likes", "Alice is the CTO", "Sam's birthday"), or words that take a person
/// before it ("met Bob", "with Alice", "ask Sam", "married to Alice").
pub fn looks_like_person(before: &str, after: &str) -> bool {
    const AFTER: [&str; 40] = [
        "'s ",
        "’s ",
        "said",
        "says",
        "told",
        "tells",
        "thinks",
        "thought",
        "wants",
        "wanted",
        "likes",
        "liked",
        "loves",
        "loved",
        "hates",
        "hated",
        "prefers",
        "preferred",
        "enjoys",
        "lives",
        "lived",
        "works",
        "worked",
        "moved",
        "was born",
        "is allergic",
        "is vegetarian",
        "is vegan",
        "is the",
        "is my",
        "is our",
        "is a friend",
        "is married",
        "has a",
        "has two",
        "asked",
        "called",
        "emailed",
        "mentioned",
        "feels",
    ];
    const BEFORE: [&str; 20] = [
        "with", "met", "meet", "meeting", "ask", "asked", "tell", "told", "call", "called",
        "email", "emailed", "text", "thank", "thanked", "visit", "visited", "dear", "mr.", "ms.",
    ];
    /// Phrases that end right before someone's name.
    const BEFORE_PHRASES: [&str; 9] = [
        "married to",
        "engaged to",
        "is dating",
        "friends with",
        "reports to",
        "divorced from",
        "going out with",
        "a friend of",
        "in love with",
    ];
    let after = after.trim_start();
    let before = before.trim_end();
    AFTER.iter().any(|w| after.starts_with(w))
        || BEFORE_PHRASES.iter().any(|p| before.ends_with(p))
        || before
            .rsplit(|c: char| c.is_whitespace())
            .next()
            .is_some_and(|w| BEFORE.contains(&w) || w == "mrs." || w == "dr.")
}

/// Whether a name is one, from what the messages say about it: named in at least two messages,
/// at least once in the middle of a sentence, and, for one word, written in lower case
/// (`lower_case` times) less often than capitalised mid-sentence.
pub fn is_name(name: &str, seen: &Seen, lower_case: u32) -> bool {
    seen.messages >= 2
        && seen.mid_sentence >= 1
        && (name.contains(' ') || lower_case < seen.mid_sentence)
}

/// Whether a name met in one message is one without other messages to go by: in the middle of
/// a sentence, and either of several words, after a place cue, or a common given name.
pub fn confident(o: &Occurrence) -> bool {
    let first = o.name.split(' ').next().unwrap_or("");
    !o.initial && (o.name.contains(' ') || o.after_place_cue || kin::is_given_name(first))
}

/// A name one message makes clear on its own, with its entity type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// The name, its words separated by one space.
    pub name: String,
    /// Its entity type (`person`, `place`, `organization`, `event`, `tool`, `concept`…).
    pub kind: &'static str,
}

/// The names one message remembered on its own (`remember`) makes clear, each once, in order:
/// what [`confident`] accepts, typed by [`kind`] over that message alone. The caller links a
/// name the workspace already knows wherever it stands ([`occurrences`] gives every name).
pub fn of_one_message(text: &str) -> Vec<Named> {
    let mut out: Vec<Named> = Vec::new();
    for o in occurrences(text).iter().filter(|o| confident(o)) {
        let mut seen = Seen::default();
        seen.add([o]);
        if !out.iter().any(|n| n.name == o.name) {
            out.push(Named { name: o.name.clone(), kind: kind(&o.name, &seen) });
        }
    }
    out
}

/// The entity type of a name: `event` or `organization` by its last word ("Pride Parade",
/// "Acme Inc"), `place` when at least half its occurrences follow a place cue, `person` when it
/// starts with a common given name, else `concept`.
pub fn kind(name: &str, seen: &Seen) -> &'static str {
    let words: Vec<String> = name.split(' ').map(str::to_lowercase).collect();
    let last = words.last().map_or("", String::as_str);
    if words.len() > 1 && EVENT_WORDS.contains(&last) {
        return "event";
    }
    if words.len() > 1 && ORGANISATION_WORDS.contains(&last) {
        return "organization";
    }
    if seen.times > 0 && seen.after_place_cue * 2 >= seen.times {
        return "place";
    }
    if kin::is_given_name(name.split(' ').next().unwrap_or("")) {
        return "person";
    }
    "concept"
}

/// Tells whether a speaker's name as a transcript gives it is a plain name that can have an
/// entity: one to [`MAX_WORDS`] words of letters (and `'`, `’`, `-`, `.`), nothing else.
pub fn is_plain_name(name: &str) -> bool {
    let words = name.split(' ').count();
    !name.trim().is_empty()
        && words <= MAX_WORDS
        && name.chars().any(char::is_alphabetic)
        && name.chars().all(|c| c.is_alphabetic() || " '’-.".contains(c))
}

/// Which of `people` (full names, as a conversation's speakers are written) a name stands
/// for: one whose first name is the name's first word, or starts with it ("Mel" for
/// "Melanie", three letters at least).
pub fn person_of<'p>(name: &str, people: &'p [String]) -> Option<&'p str> {
    let first = name.split(' ').next()?.to_lowercase();
    people.iter().map(String::as_str).find(|p| {
        let given = p.split_whitespace().next().unwrap_or("").to_lowercase();
        !given.is_empty()
            && (given == first || first.chars().count() >= 3 && given.starts_with(&first))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name, whether it starts a sentence, whether it follows a place cue.
    type Read = (String, bool, bool);

    fn names(text: &str) -> Vec<Read> {
        occurrences(text).into_iter().map(|o| (o.name, o.initial, o.after_place_cue)).collect()
    }

    fn n(name: &str, initial: bool, place: bool) -> Read {
        (name.to_owned(), initial, place)
    }

    #[test]
    fn reads_capitalised_runs() {
        let cases: Vec<(&str, Vec<Read>)> = vec![
            ("We went to the Pride Parade.", vec![n("Pride Parade", false, true)]),
            ("Hey Caroline! How are you?", vec![n("Caroline", false, false)]),
            ("Caroline said hi", vec![n("Caroline", true, false)]),
            ("I moved from Sweden last year", vec![n("Sweden", false, true)]),
            ("Thanks, Mel. See you", vec![n("Mel", false, false), n("See", true, false)]),
            ("Melanie's kids love it", vec![n("Melanie", true, false)]),
            ("I saw The Grand Canyon", vec![n("Grand Canyon", false, false)]),
            (
                "went to Paris, France in May",
                vec![n("Paris", false, true), n("France", false, false)],
            ),
            ("Dr. Suzuki is great", vec![n("Suzuki", false, false)]),
            ("\"Oscar\" is my dog", vec![n("Oscar", true, false)]),
            ("- Ada wrote it", vec![n("Ada", true, false)]),
            ("first line\nBob came", vec![n("Bob", true, false)]),
            ("I talked to Hana about the trip", vec![n("Hana", false, false)]),
            (
                "I wrote to Bob and waved at Kenji",
                vec![n("Bob", false, false), n("Kenji", false, false)],
            ),
            ("Then I went to Kyoto", vec![n("Kyoto", false, true)]),
        ];
        for (input, want) in cases {
            assert_eq!(names(input), want, "input: {input:?}");
        }
    }

    #[test]
    fn greetings_pronouns_and_sentence_starts_name_nothing() {
        for input in [
            "I think so. Wow, that is great! Yeah.",
            "Hi! Thanks so much. Congrats on the new job.",
            "The weather was nice. It rained on Monday and in June.",
            "",
            "   \n\t ",
            "lower case only here",
        ] {
            assert_eq!(names(input), Vec::new(), "input: {input:?}");
        }
    }

    #[test]
    fn hostile_and_odd_text_names_nothing_unsafe() {
        let long = "Aa ".repeat(10_000);
        let many = "x Bob y ".repeat(1000);
        let cases = [
            "ignore [[person--evil]] --> <!-- entities: x --> `Code Block` here",
            "see https://Example.com/Paris and mail Bob@Example.com",
            "[image: a photo of Paris] nice",
            "東京に行きました。田中さんと会った",
            "Ünïcödé Ñame went to Zürich",
            "\u{0}Bob\u{7}, A\u{301}da and 🎉 Party 🎉",
            &long,
            &many,
        ];
        for input in cases {
            let got = occurrences(input);
            assert!(got.len() <= MAX_NAMES, "input: {input:?}");
            for o in &got {
                assert!(o.name.split(' ').count() <= MAX_WORDS, "input: {input:?}: {o:?}");
                assert!(
                    o.name.chars().all(|c| c.is_alphabetic() || " '’-".contains(c)),
                    "input: {input:?}: {o:?}"
                );
            }
        }
        assert_eq!(names(cases[0]), Vec::new(), "wiki links, comments and code are not names");
        assert_eq!(names(cases[1]), Vec::new(), "links and addresses are not names");
        assert_eq!(names(cases[2]), Vec::new(), "a caption is not the speaker's words");
        assert_eq!(names(cases[3]), Vec::new(), "no capitals, no names");
        assert_eq!(names(cases[4]), vec![n("Ünïcödé Ñame", true, false), n("Zürich", false, true)]);
    }

    #[test]
    fn judges_a_name_from_its_messages() {
        let seen = |messages, times, mid, place| Seen {
            messages,
            times,
            mid_sentence: mid,
            after_place_cue: place,
        };
        let cases = [
            ("Sweden", seen(2, 2, 1, 2), 0, true),
            ("Sweden", seen(1, 3, 3, 3), 0, false), // one message only
            ("Sweden", seen(3, 3, 0, 0), 0, false), // never mid-sentence
            ("Here", seen(5, 5, 2, 0), 40, false),  // a word in lower case
            ("Pride Parade", seen(2, 2, 1, 0), 0, true), // several words: no lower-case test
        ];
        for (name, s, lower, want) in cases {
            assert_eq!(is_name(name, &s, lower), want, "input: {name} {s:?} {lower}");
        }
        let kinds = [
            ("Pride Parade", seen(2, 2, 2, 0), "event"),
            ("Stanford University", seen(2, 2, 2, 2), "organization"),
            ("Sweden", seen(4, 4, 4, 2), "place"),
            ("Sweden", seen(4, 4, 4, 1), "concept"),
            ("Emma", seen(2, 2, 2, 0), "person"),
        ];
        for (name, s, want) in kinds {
            assert_eq!(kind(name, &s), want, "input: {name} {s:?}");
        }
    }

    #[test]
    fn a_single_message_names_only_what_it_makes_clear() {
        let cases = [
            ("I moved to Lisbon", true),
            ("we met Grace Hopper", true),
            ("I talked to Emma", true),
            ("Lisbon is nice", false),
            ("I like Pottery", false),
        ];
        for (input, want) in cases {
            let got = occurrences(input).iter().any(confident);
            assert_eq!(got, want, "input: {input:?}");
        }
    }

    #[test]
    fn a_speaker_with_markup_is_no_name() {
        for (input, want) in [
            ("Caroline", true),
            ("Mary-Jane O'Neil", true),
            ("Dr. Ada Lovelace", true),
            ("Mel <!-- entities: [[person--eve]] -->", false),
            ("Mel\n## 09:00 | fact", false),
            ("user 42", false),
            ("", false),
            ("A B C D E", false),
        ] {
            assert_eq!(is_plain_name(input), want, "input: {input:?}");
        }
    }

    #[test]
    fn a_short_name_is_the_speaker_it_starts() {
        let people = vec!["Melanie".to_owned(), "Caroline Smith".to_owned()];
        assert_eq!(person_of("Mel", &people), Some("Melanie"));
        assert_eq!(person_of("Caroline", &people), Some("Caroline Smith"));
        assert_eq!(person_of("Me", &people), None);
        assert_eq!(person_of("Sweden", &people), None);
    }
}
