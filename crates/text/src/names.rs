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

/// Words written with a capital that never start a name (lower case): the pronoun, greetings
/// and interjections, conjunctions that open a sentence ("After", "When") and generic
/// acronyms ("API", "CI", "LGBTQ").
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
    "after",
    "before",
    "during",
    "since",
    "until",
    "when",
    "while",
    "if",
    "because",
    "though",
    "although",
    "then",
    "once",
    "api",
    "sdk",
    "ci",
    "cd",
    "ui",
    "ux",
    "db",
    "os",
    "pr",
    "kpi",
    "okr",
    "roi",
    "eta",
    "asap",
    "fyi",
    "lgbtq",
    "lgbt",
    "faq",
    "url",
    "pdf",
    "csv",
    "json",
    "html",
    "css",
    "http",
    "sso",
    "saas",
];

/// Words before a name that make it a place ("in Sweden", "visited Paris").
const PLACE_CUES: &[&str] = &[
    "in", "to", "from", "at", "near", "around", "visit", "visited", "visiting", "outside",
    "through", "across", "toward", "towards", "into",
];

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
    /// Up to three words before it in its clause, lower case, one space apart ("met",
    /// "my cousin").
    pub before: String,
    /// Up to six words after it on its line, lower case, one space apart; starting with `'s `
    /// when the name was written with a possessive ("'s birthday is").
    pub after: String,
    /// It stands first on its line, right before a colon: a transcript's speaker ("Dana: …").
    pub label: bool,
    /// An honorific or a word for someone's role stands right before it, or began its run
    /// ("Dr. Patel", "Aunt Rosa", "my cousin Adebayo").
    pub titled: bool,
    /// Byte range of the name in the text (its first word's start to its last word's end,
    /// a possessive `'s` left out).
    pub span: std::ops::Range<usize>,
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

/// Verbs and nouns a note often opens with, before a name: "Called Tom", "Met Dana",
/// "Lunch with Priya", "Ask Jenna". A word ending in `-ed` that is not a given name counts too.
#[rustfmt::skip]
const OPENERS: &[&str] = &[
    "ask", "book", "bring", "brought", "brunch", "breakfast", "call", "catch", "chat", "check",
    "coffee", "congratulate", "dinner", "drinks", "drive", "drove", "email", "follow", "go",
    "going", "help", "hug", "interview", "interviewing", "invite", "lunch", "meet", "meeting",
    "message", "met", "note", "pay", "paid", "ping", "play", "remind", "reminder", "review",
    "saw", "see", "send", "sent", "sync", "take", "talk", "tell", "text", "thank", "told",
    "took", "visit", "visiting", "went", "welcome",
];

/// Whether a word is the pronoun "I" in one of its forms ("I", "I'd", "I'm").
fn is_i(word: &str) -> bool {
    word.strip_prefix(['I', 'i'])
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['\'', '’']))
}

/// Whether a word (lower case) at the start of a sentence is a note's opening verb or noun,
/// not the first word of a name.
fn is_opener(lower: &str) -> bool {
    OPENERS.contains(&lower)
        || lower.len() >= 5 && lower.ends_with("ed") && !kin::is_given_name(lower)
}

/// Whether a word (lower case) names someone's role and may stand before a name written with
/// a capital ("Aunt Rosa", "Grandma Lucia", "Cousin Pedro").
pub fn is_role_word(lower: &str) -> bool {
    kin::en_role_prefix(lower).is_some_and(|(_, len)| len == lower.len())
}

/// Whether word `at` is the first of its line.
fn starts_line(words: &[Word<'_>], at: usize) -> bool {
    at == 0 || words[at].new_line
}

/// Up to three words before word `at`, in its clause, lower case.
fn clause_before(words: &[Word<'_>], at: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut k = at;
    while k > 0 && out.len() < 3 && words[k].lead.is_empty() && !words[k].new_line {
        k -= 1;
        let w = &words[k];
        if w.trail.contains(['.', '!', '?', ';', ':', ',']) && !kin::is_honorific(w.core) {
            break;
        }
        out.push(w.core.to_lowercase());
    }
    out.reverse();
    out.join(" ")
}

/// Up to six words after word `at` (the name's last), on its line, lower case; a possessive
/// on the name's last word is written first as `'s`.
fn line_after(words: &[Word<'_>], at: usize) -> String {
    let mut out: Vec<String> = Vec::new();
    if possessive(words[at].core).1 {
        out.push("'s".to_owned());
    }
    for w in words.iter().skip(at + 1).take(6) {
        if w.new_line {
            break;
        }
        out.push(w.core.to_lowercase());
    }
    out.join(" ")
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
            && !is_i(words[j + 1].core)
        {
            j += 1;
        }
        // Greetings and common words before the name are not part of it, nor, at the start of
        // a sentence, the verb or noun a note opens with ("Called Tom", "Lunch with …"), nor a
        // word for someone's role ("Aunt Rosa").
        let mut first = i;
        let mut titled = false;
        while first <= j {
            let lower = possessive(words[first].core).0.to_lowercase();
            if never_first(&lower) {
                first += 1;
            } else if first < j && is_role_word(&lower) {
                titled = true;
                first += 1;
            } else if first < j && starts_sentence(&words, first) && is_opener(&lower) {
                first += 1;
            } else {
                break;
            }
        }
        let run: Vec<&str> =
            (first..=j).map(|k| possessive(words[k].core).0).filter(|w| !w.is_empty()).collect();
        let lone_role = run.len() == 1
            && (is_role_word(&run[0].to_lowercase())
                || kin::is_role_acronym(run[0])
                || starts_sentence(&words, first) && is_opener(&run[0].to_lowercase()));
        if !run.is_empty()
            && !lone_role
            && run.len() <= MAX_WORDS
            && run.iter().all(|w| w.chars().count() >= 2)
        {
            let before = clause_before(&words, first);
            let titled = titled
                || (first > 0 && kin::is_honorific(words[first - 1].core))
                || kin::en_role_prefix(before.rsplit(' ').next().unwrap_or("")).is_some();
            let label = starts_line(&words, first) && words[j].trail.starts_with(':');
            let at = |w: &str| w.as_ptr() as usize - text.as_ptr() as usize;
            let last = possessive(words[j].core).0;
            let span = at(words[first].core)..at(last) + last.len();
            out.push(Occurrence {
                span,
                name: run.join(" "),
                initial: starts_sentence(&words, first),
                after_place_cue: after_place_cue(&words, first),
                before,
                after: line_after(&words, j),
                label,
                titled,
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
        || is_known_tool(name)
}

/// Software and technologies a message names without any word that says so (lower case): a
/// name that is one, or a name of several words whose first is one ("GitHub Actions"). `true`
/// when the lower-case name is no English word, so that a note written all in lower case names
/// it too ("turn off the old redis boxes").
#[rustfmt::skip]
const KNOWN_TOOLS: &[(&str, bool)] = &[
    ("airflow", true), ("android", true), ("angular", false), ("ansible", true), ("argo", false),
    ("asana", false), ("aws", false), ("azure", false), ("bash", false), ("bitbucket", true),
    ("blender", false), ("canva", false), ("chatgpt", false), ("chrome", false),
    ("circleci", true), ("confluence", true), ("datadog", true), ("discord", false),
    ("django", false), ("docker", true), ("dropbox", false), ("elasticsearch", true),
    ("emacs", false), ("excel", false), ("figma", true), ("firebase", true), ("firefox", false),
    ("flask", false), ("gcp", false), ("git", false), ("github", true), ("gitlab", true),
    ("gmail", true), ("go", false), ("google docs", false), ("google drive", false),
    ("google sheets", false), ("grafana", true), ("graphql", true), ("helm", false),
    ("heroku", true), ("ios", false), ("java", false), ("javascript", true), ("jenkins", true),
    ("jira", true), ("jupyter", true), ("kafka", true), ("kotlin", false), ("kubernetes", true),
    ("linux", true), ("macos", true), ("matlab", false), ("miro", false), ("mongodb", true),
    ("mysql", true), ("netlify", true), ("nginx", true), ("node", false), ("notion", false),
    ("numpy", true), ("outlook", false), ("pandas", false), ("php", false), ("postgres", true),
    ("postgresql", true), ("postman", false), ("powerpoint", false), ("prometheus", false),
    ("python", false), ("pytorch", true), ("rails", false), ("react", false), ("redis", true),
    ("ruby", false), ("rust", false), ("scala", false), ("sentry", false), ("slack", false),
    ("snowflake", false), ("spark", false), ("sqlite", true), ("supabase", true),
    ("svelte", false), ("swift", false), ("tableau", false), ("tailwind", false),
    ("tensorflow", true), ("terraform", true), ("trello", false), ("typescript", true),
    ("ubuntu", true), ("vercel", true), ("vim", false), ("vscode", true), ("vue", false),
    ("webpack", true), ("whatsapp", true), ("windows", false), ("xcode", true), ("zoom", false),
];

/// Whether `lower` is known software, and if so whether its lower-case name is one too.
fn known_tool(lower: &str) -> Option<bool> {
    KNOWN_TOOLS.iter().find(|(name, _)| *name == lower).map(|(_, in_lower_case)| *in_lower_case)
}

/// Whether a name is software or a technology everyone knows by that name ("Postgres",
/// "Jenkins", "GitHub Actions", "Google Docs").
pub fn is_known_tool(name: &str) -> bool {
    let lower = name.to_lowercase();
    let first = lower.split(' ').next().unwrap_or("");
    known_tool(&lower).is_some() || lower.contains(' ') && known_tool(first).is_some()
}

/// Tells whether the words around a capitalised name say it is someone: a verb people do
/// after it ("Bob likes", "Alice is the CTO", "Sam's birthday"), or words that take a person
/// before it ("met Bob", "with Alice", "ask Sam", "married to Alice").
pub fn looks_like_person(before: &str, after: &str) -> bool {
    const AFTER: &[&str] = &[
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
        "joined",
        "quit",
        "flew",
        "drove",
        "recommended",
        "suggested",
        "approved",
        "agreed",
        "promised",
        "decided",
        "introduced",
        "texted",
        "leads",
        "runs",
        "is taking",
        "is getting",
        "is pregnant",
        "is coming",
        "will present",
        "can't",
        "won't",
    ];
    const BEFORE: &[&str] = &[
        "with",
        "met",
        "meet",
        "meeting",
        "ask",
        "asked",
        "tell",
        "told",
        "call",
        "called",
        "email",
        "emailed",
        "text",
        "texted",
        "thank",
        "thanked",
        "visit",
        "visited",
        "dear",
        "mr.",
        "ms.",
        "remind",
        "reminded",
        "ping",
        "pinged",
        "message",
        "messaged",
        "invite",
        "invited",
        "congratulate",
        "congratulated",
        "interviewed",
        "hired",
        "booked",
        "sent",
        "drove",
        "paid",
        "pay",
        "hug",
        "hugged",
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

/// The names one message remembered on its own (`remember`) makes clear, each once, in order,
/// typed by what the message itself says ([`judge`]); a name joined by "and", "or" or a comma
/// to one already judged takes its type ("Marisol and Diego", "Vietnam and Cambodia"). The
/// caller links a name the workspace already knows wherever it stands ([`occurrences`] gives
/// every name).
pub fn of_one_message(text: &str) -> Vec<Named> {
    of_occurrences(text, &occurrences(text))
}

/// [`of_one_message`] for a caller that already has the text's [`occurrences`] (`all`).
pub fn of_occurrences(text: &str, all: &[Occurrence]) -> Vec<Named> {
    let mut kinds: Vec<Option<&'static str>> = all.iter().map(judge).collect();
    // Whether name `b` follows name `a` joined by "and", "or", "&" or "and then".
    let joined = |a: &Occurrence, b: &Occurrence| {
        let prev = a.name.rsplit(' ').next().unwrap_or("").to_lowercase();
        ["and", "or", "&", "and then"].iter().any(|c| {
            b.before == format!("{prev} {c}") || b.before.ends_with(&format!(" {prev} {c}"))
        })
    };
    for i in 1..all.len() {
        if kinds[i].is_none() && joined(&all[i - 1], &all[i]) {
            kinds[i] = kinds[i - 1];
        }
    }
    for i in (0..all.len().saturating_sub(1)).rev() {
        if kinds[i].is_none() && joined(&all[i], &all[i + 1]) {
            kinds[i] = kinds[i + 1];
        }
    }
    let mut out: Vec<Named> = Vec::new();
    let lower = lower_case_names(text);
    for (o, judged) in all.iter().zip(kinds) {
        if let Some(kind) = judged {
            let name = match kind {
                "project" => o.name.strip_prefix("Project ").unwrap_or(&o.name).to_owned(),
                _ => o.name.clone(),
            };
            if !out.iter().any(|n| n.name == name) {
                out.push(Named { name, kind });
            }
        }
    }
    for n in lower {
        if !out.iter().any(|o| o.name.eq_ignore_ascii_case(&n.name)) {
            out.push(n);
        }
    }
    out
}

/// Names written in lower case that one message still makes clear: a common given name right
/// after words that take someone ("met sam", "with priya", "my brother jake") or before words
/// people do ("priya said"), and software whose name is no English word ("redis").
fn lower_case_names(text: &str) -> Vec<Named> {
    let words = words(text);
    let mut out: Vec<Named> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let (core, _) = possessive(w.core);
        if core.is_empty() || !core.chars().all(|c| c.is_ascii_lowercase()) {
            continue;
        }
        let kind = if known_tool(core) == Some(true) {
            "tool"
        } else if kin::is_given_name(core) && !stopword::is_english(core, Tier::Topic) {
            let before = clause_before(&words, i);
            let after = line_after(&words, i);
            let role = is_role_word(before.rsplit(' ').next().unwrap_or(""));
            if !(role || looks_like_person(&before, &after)) {
                continue;
            }
            "person"
        } else {
            continue;
        };
        // A person's name as a name is written ("sam" is Sam); software's as it is.
        let name = match kind {
            "person" => core[..1].to_uppercase() + &core[1..],
            _ => core.to_owned(),
        };
        if !out.iter().any(|n| n.name.eq_ignore_ascii_case(&name)) {
            out.push(Named { name, kind });
        }
    }
    out
}

/// Lower-case words after a name that make it a project ("the Falcon rewrite", "the Orion
/// dashboard", "Zephyr v2").
#[rustfmt::skip]
const PROJECT_NOUNS: &[&str] = &[
    "app", "backend", "beta", "dashboard", "demo", "frontend", "integration", "launch",
    "migration", "mvp", "pipeline", "platform", "portal", "project", "prototype", "redesign",
    "release", "repo", "rewrite", "rollout", "service", "site", "website",
];

/// Languages and nationalities, which a place cue does not make places ("in French").
#[rustfmt::skip]
const LANGUAGES: &[&str] = &[
    "arabic", "bengali", "cantonese", "chinese", "czech", "danish", "dutch", "english", "finnish",
    "french", "german", "greek", "hebrew", "hindi", "hungarian", "indonesian", "italian",
    "japanese", "korean", "latin", "mandarin", "norwegian", "persian", "polish", "portuguese",
    "romanian", "russian", "spanish", "swahili", "swedish", "thai", "turkish", "ukrainian",
    "urdu", "vietnamese",
];

/// Lower-case words after a name that make it a place ("the Oslo office", "our Lisbon trip").
const PLACE_NOUNS: &[&str] = &["office", "offsite", "trip", "campus", "branch", "airport"];

/// Words that make a name a place, first ("Lake Tahoe", "Mount Rainier") or last ("Grand
/// Canyon", "Union Station").
#[rustfmt::skip]
const PLACE_WORDS: &[&str] = &[
    "airport", "avenue", "bay", "beach", "bridge", "canyon", "coast", "desert", "falls",
    "forest", "island", "islands", "lake", "mount", "mountain", "mountains", "mt", "ocean",
    "park", "peak", "river", "road", "sea", "square", "station", "street", "valley",
];

/// Well-known organisations a message names without any word that says so ("works at
/// Google", "UNICEF"), lower case.
#[rustfmt::skip]
const KNOWN_ORGANISATIONS: &[&str] = &[
    "accenture", "adidas", "airbnb", "airbus", "amazon", "anthropic", "apple", "boeing",
    "deloitte", "facebook", "fda", "google", "harvard", "ibm", "ikea", "intel", "linkedin",
    "lyft", "mckinsey", "meta", "microsoft", "mit", "mozilla", "nasa", "netflix", "nike",
    "nvidia", "openai", "oracle", "oxford", "paypal", "pfizer", "princeton", "samsung",
    "shopify", "sony", "spotify", "stanford", "starbucks", "stripe", "tesla", "toyota",
    "twitter", "uber", "unicef", "walmart", "yale", "youtube",
];

/// The entity type of a name that one message makes clear on its own, `None` when the message
/// leaves it in doubt (a lone capitalised word with nothing around it that says what it is).
pub fn judge(o: &Occurrence) -> Option<&'static str> {
    let words: Vec<String> = o.name.split(' ').map(str::to_lowercase).collect();
    let first = words.first().map_or("", String::as_str);
    let last = words.last().map_or("", String::as_str);
    let lower = o.name.to_lowercase();
    let multi = words.len() > 1;
    let next = o.after.split(' ').next().unwrap_or("");
    let cue = o.before.rsplit(' ').next().unwrap_or("");
    let after_the = cue == "the";
    if o.label || o.titled {
        return Some("person");
    }
    if !multi && LANGUAGES.contains(&first) {
        return None; // "answer in French": a language, not a place
    }
    // "Pride Parade", "PyCon", "RustConf", "Burning Man tickets", "tickets for Glastonbury".
    let con = !multi
        && o.name.chars().skip(1).any(char::is_uppercase)
        && (last.ends_with("con") || last.ends_with("conf"));
    if multi && EVENT_WORDS.contains(&last)
        || con
        || next == "tickets"
        || o.before.ends_with("tickets for")
        || o.before.ends_with("tickets to")
    {
        return Some("event");
    }
    if multi && ORGANISATION_WORDS.contains(&last) || KNOWN_ORGANISATIONS.contains(&lower.as_str())
    {
        return Some("organization");
    }
    if is_known_tool(&o.name) {
        return Some("tool");
    }
    let version = next.len() >= 2
        && next.starts_with('v')
        && next[1..].bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if multi && first == "project" || PROJECT_NOUNS.contains(&next) || version {
        return Some("project");
    }
    let given = kin::is_given_name(first);
    // "visited Paris" is somewhere; "visited Ingrid" someone.
    if !given && o.after_place_cue && matches!(cue, "visit" | "visited" | "visiting") {
        return Some("place");
    }
    if given || looks_like_person(&o.before, &o.after) && !after_the {
        return Some("person");
    }
    if looks_like_tool(&o.name) {
        return Some("tool");
    }
    if multi && (PLACE_WORDS.contains(&first) || PLACE_WORDS.contains(&last)) {
        return Some("place");
    }
    if !o.initial && o.after_place_cue || PLACE_NOUNS.contains(&next) {
        return Some("place");
    }
    if after_the && multi {
        // "the Red Cross", "the Nubank team": something, and not someone.
        return Some("organization");
    }
    // Two or three capitalised words with nothing else to go by are most often someone.
    (multi && words.len() <= 3).then_some("person")
}

/// The entity type of a name from what a body of messages says about it (`import`): `event` or
/// `organization` by its last word ("Pride Parade", "Acme Inc"), `organization` or `tool` when
/// everyone knows it as one ("Google", "Jenkins"), `place` when at least half its occurrences
/// follow a place cue, `person` when it starts with a common given name, `place` by a place
/// word ("Lake Tahoe"), else `concept`.
pub fn kind(name: &str, seen: &Seen) -> &'static str {
    let words: Vec<String> = name.split(' ').map(str::to_lowercase).collect();
    let last = words.last().map_or("", String::as_str);
    if words.len() > 1 && EVENT_WORDS.contains(&last) {
        return "event";
    }
    if words.len() > 1 && ORGANISATION_WORDS.contains(&last)
        || KNOWN_ORGANISATIONS.contains(&name.to_lowercase().as_str())
    {
        return "organization";
    }
    let first = words.first().map_or("", String::as_str);
    let given = kin::is_given_name(first);
    // Known software is a tool wherever it is named ("moved to Jenkins"), not a place.
    if is_known_tool(name) && !given {
        return "tool";
    }
    if seen.times > 0 && seen.after_place_cue * 2 >= seen.times {
        return "place";
    }
    if given {
        return "person";
    }
    if words.len() > 1 && (PLACE_WORDS.contains(&first) || PLACE_WORDS.contains(&last)) {
        return "place";
    }
    "concept"
}

/// Tells whether a speaker's name as a transcript gives it is a plain name that can have an
/// entity: one to [`MAX_WORDS`] words of letters (and `'`, `’`, `-`, `.`), nothing else, and not
/// a chat role standing where a name would (`user`, `assistant`, `system`, …: a transcript of an
/// agent's session, or a JSON Lines file with `role` instead of `speaker`, names no one).
pub fn is_plain_name(name: &str) -> bool {
    const ROLES: [&str; 10] = [
        "user",
        "assistant",
        "system",
        "tool",
        "developer",
        "human",
        "ai",
        "bot",
        "model",
        "function",
    ];
    let words = name.split(' ').count();
    !name.trim().is_empty()
        && words <= MAX_WORDS
        && name.chars().any(char::is_alphabetic)
        && name.chars().all(|c| c.is_alphabetic() || " '’-.".contains(c))
        && !ROLES.iter().any(|r| r.eq_ignore_ascii_case(name.trim()))
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
            // "See" opens the sentence as a verb: no name (2026-12-03).
            ("Thanks, Mel. See you", vec![n("Mel", false, false)]),
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
    fn a_chat_role_is_no_speaker_name() {
        for role in ["user", "User", "assistant", "SYSTEM", "tool", "human", "AI"] {
            assert!(!is_plain_name(role), "{role}");
        }
        for name in ["Caroline", "Mel", "Ann-Marie", "Dr. Patel", "Userina"] {
            assert!(is_plain_name(name), "{name}");
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

    fn one(text: &str) -> Vec<(String, &'static str)> {
        of_one_message(text).into_iter().map(|n| (n.name, n.kind)).collect()
    }

    fn named(list: &[(&str, &'static str)]) -> Vec<(String, &'static str)> {
        list.iter().map(|(n, k)| ((*n).to_owned(), *k)).collect()
    }

    #[test]
    fn one_message_drops_the_word_a_note_opens_with() {
        assert_eq!(one("Called Tom about the invoice"), named(&[("Tom", "person")]));
        assert_eq!(
            one("Met Dana Whitfield at the Acme Corp open house"),
            named(&[("Dana Whitfield", "person"), ("Acme Corp", "organization")])
        );
        assert_eq!(one("Remind Oluwaseun to file the report"), named(&[("Oluwaseun", "person")]));
        assert_eq!(one("Lunch with Priya tomorrow"), named(&[("Priya", "person")]));
        // "Told Grace I'd …": the pronoun ends the name.
        assert_eq!(one("Told Grace I'd cover her shift"), named(&[("Grace", "person")]));
    }

    #[test]
    fn one_message_types_a_name_by_what_its_sentence_says() {
        assert_eq!(
            one("Dana prefers email over Slack"),
            named(&[("Dana", "person"), ("Slack", "tool")])
        );
        assert_eq!(
            one("Caroline: we went to Lisbon"),
            named(&[("Caroline", "person"), ("Lisbon", "place")])
        );
        assert_eq!(one("The Falcon rewrite is late"), named(&[("Falcon", "project")]));
        // A common given name after a place cue is someone; a rollout is a project's.
        assert_eq!(
            one("Priya took over the Helios rollout from Marco"),
            named(&[("Priya", "person"), ("Helios", "project"), ("Marco", "person")])
        );
        assert_eq!(
            one("Alice moved to Lisbon"),
            named(&[("Alice", "person"), ("Lisbon", "place")])
        );
        assert_eq!(one("Project Atlas starts in March"), named(&[("Atlas", "project")]));
        assert_eq!(one("Zephyr v2 ships offline mode"), named(&[("Zephyr", "project")]));
        assert_eq!(one("Giving a talk at PyCon"), named(&[("PyCon", "event")]));
        assert_eq!(one("We hiked the Grand Canyon"), named(&[("Grand Canyon", "place")]));
        assert_eq!(one("She works at Google now"), named(&[("Google", "organization")]));
        assert_eq!(
            one("Lunch at Carbone with Aunt Rosa"),
            named(&[("Carbone", "place"), ("Rosa", "person")])
        );
        assert_eq!(
            one("Played tennis with Marisol and Diego"),
            named(&[("Marisol", "person"), ("Diego", "person")])
        );
        assert_eq!(
            one("Keanu and Marisol flew home"),
            named(&[("Keanu", "person"), ("Marisol", "person")])
        );
    }

    #[test]
    fn kind_knows_software_organisations_and_place_words_wherever_they_are_named() {
        let cued = Seen { messages: 2, times: 2, mid_sentence: 2, after_place_cue: 2 };
        assert_eq!(kind("Jenkins", &cued), "tool");
        assert_eq!(kind("Google", &cued), "organization");
        assert_eq!(kind("Sweden", &cued), "place");
        assert_eq!(kind("Lake Tahoe", &Seen::default()), "place");
        assert_eq!(kind("Caroline", &Seen::default()), "person");
        assert_eq!(kind("Pottery", &Seen::default()), "concept");
    }

    #[test]
    fn one_message_reads_lower_case_notes_by_their_cues() {
        assert_eq!(one("met sam at the cafe"), named(&[("Sam", "person")]));
        assert_eq!(one("my brother ben lives nearby"), named(&[("Ben", "person")]));
        assert_eq!(one("turn off the old redis boxes"), named(&[("redis", "tool")]));
        // A given name with nothing around it that says someone: not linked.
        assert_eq!(one("the sam file is missing"), named(&[]));
    }

    #[test]
    fn one_message_leaves_out_what_is_no_name() {
        for text in [
            "The CTO wants a postmortem",
            "Call Mom tonight",
            "Stripe changed the API again; the CI is red",
            "Happy birthday!",
            "Kubernetes",
            "Atlas is late",
        ] {
            let got = one(text);
            assert!(
                got.iter()
                    .all(|(n, _)| !["CTO", "Mom", "API", "CI", "Happy", "Atlas"]
                        .contains(&n.as_str())),
                "{text:?}: {got:?}"
            );
        }
    }
}
