//! Routing: which stores a memory belongs in, what entities and relations it names, and why.
//! Deterministic and pure — the cognitive-memory skill's store-selection table as code, with
//! bounded extraction patterns. Where a model would do better, [`prompt`] builds the question
//! for the host agent and [`RoutingAnswer`] validates its reply.

use std::ops::Range;

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use crate::error::InputError;
use crate::kin;
use crate::markdown::slugify;
use crate::model::{Confidence, EntityId, EntryType, Store};
use crate::names;
use crate::stopword::{self, Tier};

/// The relations routing's patterns write (besides [`kin::RELATIONS`]); see [`written_relations`].
const PATTERN_RELATIONS: &[&str] = &[
    "works-at",
    "works-on",
    "lives-in",
    "uses",
    "depends-on",
    "part-of",
    "prefers",
    "avoids",
    "supersedes",
    "relates-to",
];

/// Every relation routing can write: the kin words' and the patterns'. The vocabulary must
/// declare each, so `doctor` adds any an older `relations.md` lacks.
pub fn written_relations() -> impl Iterator<Item = &'static str> {
    kin::RELATIONS.iter().chain(PATTERN_RELATIONS).copied()
}

mod stores;
use stores::{Kind, topic_entity};

/// An entity the workspace already knows, with the names it goes by (lower case).
#[derive(Debug, Clone)]
pub struct KnownEntity {
    /// Its id.
    pub id: EntityId,
    /// Its label and aliases, lower case.
    pub names: Vec<String>,
}

/// What routing needs to know about the workspace.
#[derive(Debug, Clone)]
pub struct RouteContext {
    /// The entity that stands for the user (`person--user` unless the workspace names them).
    pub user: EntityId,
    /// The user's name for summaries ("User" when unknown).
    pub user_name: String,
    /// Entities already in the graph.
    pub known: Vec<KnownEntity>,
}

impl Default for RouteContext {
    fn default() -> Self {
        Self {
            user: EntityId::parse("person--user").expect("a valid id"),
            user_name: "User".into(),
            known: Vec::new(),
        }
    }
}

/// An entity named by a memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RoutedEntity {
    /// Its id.
    pub id: String,
    /// The name as written.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: String,
}

/// A relation named by a memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoutedRelation {
    /// Subject entity id.
    pub from: String,
    /// Relation name.
    pub relation: String,
    /// Object entity id.
    pub to: String,
}

/// The routing decision, in the skill's JSON shape plus reasons.
#[derive(Debug, Clone, Serialize)]
pub struct Routing {
    /// The main store.
    pub store: Store,
    /// Every store, main first.
    pub stores: Vec<Store>,
    /// Entities named.
    pub entities: Vec<RoutedEntity>,
    /// Relations named.
    pub relations: Vec<RoutedRelation>,
    /// Two to five tags.
    pub tags: Vec<String>,
    /// How sure the memory is.
    pub confidence: Confidence,
    /// Whether MEMORY.md gets a bullet.
    pub core_update: bool,
    /// One sentence to store.
    pub summary: String,
    /// Episode entry type.
    #[serde(rename = "type")]
    pub entry_type: EntryType,
    /// Why each choice was made.
    pub reason: Vec<String>,
}

fn contains_words(hay: &str, needle: &str) -> bool {
    word_ranges(hay, needle).next().is_some()
}

/// Where `needle` stands in `hay` as whole words (a letter, digit, `-` or `_` on neither side).
fn word_ranges<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = Range<usize>> + 'a {
    let joins = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let mut from = 0;
    std::iter::from_fn(move || {
        while let Some(i) = hay.get(from..)?.find(needle) {
            let at = from + i;
            from = at + needle.len().max(1);
            let before = hay[..at].chars().next_back();
            let after = hay[at + needle.len()..].chars().next();
            let ok_b = before.is_none_or(|c| !joins(c));
            let ok_a = after.is_none_or(|c| !joins(c)) || needle.ends_with(' ');
            if ok_b && ok_a {
                return Some(at..at + needle.len());
            }
        }
        None
    })
}

/// Whether `content`, which holds the known name `name` (lower case) as words, says it as a
/// name: any mention does, except for a name that is also a common word, of one or two letters
/// or a pronoun or stop word (`tool--go`, `concept--we`), which must be written with its capital
/// and not at the start of a sentence ("I write Go", not "the kids go to bed" or "We left").
fn is_named(content: &str, name: &str) -> bool {
    let common = !name.contains(' ')
        && (name.chars().count() <= 2
            || stores::is_pronoun(name)
            || stopword::is_english(name, Tier::Query));
    if !common {
        return true;
    }
    let mut capital = name.chars();
    let Some(first) = capital.next() else { return false };
    let written: String = first.to_uppercase().chain(capital).collect();
    word_ranges(content, &written).any(|r| {
        let before = content[..r.start].trim_end_matches([' ', '\t', '"', '“', '\'', '‘', '(']);
        !before.is_empty() && !before.ends_with(['.', '!', '?', ':', '\n', '。', '！', '？'])
    })
}

/// Drops the known entities matched by a name that, wherever the text says it, is only part of
/// a longer name the text gives another entity: "my colleague Alice Chen" names Alice Chen, not
/// also the `person--alice` the workspace knows.
///
/// `hits` are the known entities matched by name, with the name matched; `names` every name of
/// an entity found, lower case.
fn drop_shadowed(
    entities: &mut Vec<RoutedEntity>,
    hits: &[(String, String)],
    lc: &str,
    reason: &mut Vec<String>,
) {
    let names: Vec<(String, String)> = entities
        .iter()
        .map(|e| (e.id.clone(), e.name.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'")))
        .chain(hits.iter().cloned())
        .collect();
    let is_shadowed = |id: &str, name: &str| {
        let longer: Vec<Range<usize>> = names
            .iter()
            .filter(|(other, n)| other != id && n.len() > name.len() && contains_words(n, name))
            .flat_map(|(_, n)| word_ranges(lc, n).collect::<Vec<_>>())
            .collect();
        !longer.is_empty()
            && word_ranges(lc, name)
                .all(|r| longer.iter().any(|l| l.start <= r.start && r.end <= l.end))
    };
    for (id, _) in hits {
        if hits.iter().filter(|(i, _)| i == id).all(|(_, n)| is_shadowed(id, n)) {
            entities.retain(|e| e.id != *id);
            reason.retain(|r| *r != format!("entity {id}: a known entity is named"));
        }
    }
}

fn first_hit<'a>(hay: &str, needles: &[&'a str]) -> Option<&'a str> {
    needles.iter().copied().find(|n| contains_words(hay, n))
}

/// Routes `content` (the memory text, trigger phrase removed).
///
/// `explicit` is true when the user asked for it ("remember …"), which makes confidence high.
pub fn route(content: &str, trigger_phrase: Option<&str>, ctx: &RouteContext) -> Routing {
    route_in(content, trigger_phrase, ctx, true)
}

/// The items of a list that is the whole of what is to be remembered ("Remember these: - Bob
/// likes tea - Carol likes coffee", or one `- ` item per line), each without its marker; empty
/// when the text is not such a list or has fewer than two items. An item is cut at a line break
/// or at ` - ` (a list marker written on one line); `-`, `*` and `•` mark items.
///
/// ```
/// use cogmem_text::route::list_items;
/// assert_eq!(list_items("- Bob likes tea - Carol likes coffee"), ["Bob likes tea", "Carol likes coffee"]);
/// assert_eq!(list_items("* a\n* b"), ["a", "b"]);
/// assert!(list_items("Bob - the new hire - likes tea").is_empty());
/// ```
pub fn list_items(content: &str) -> Vec<String> {
    let t = content.trim();
    let Some(marker) = ['-', '*', '•']
        .into_iter()
        .find(|m| t.strip_prefix(*m).is_some_and(|r| r.starts_with(' ')))
    else {
        return Vec::new();
    };
    let sep = format!(" {marker} ");
    let items: Vec<String> = t
        .lines()
        .flat_map(|line| {
            let line = line.trim();
            let line = line.strip_prefix(marker).map_or(line, str::trim_start);
            line.split(sep.as_str()).map(str::trim).collect::<Vec<_>>()
        })
        .filter(|i| !i.is_empty())
        .map(str::to_owned)
        .collect();
    if items.len() < 2 { Vec::new() } else { items }
}

/// The statement a correction `text` ("Bob's email is b@x.io, not a@x.io") says was wrong: the
/// text before its last ", not ", with as many of its last words replaced by what follows it
/// ("Bob's email is a@x.io"). `None` without ", not ", or when what follows is empty or as
/// long as what comes before. A fact that says exactly this is what the correction replaces.
///
/// ```
/// use cogmem_text::route::corrected_statement;
/// let old = corrected_statement("User's flight is on Friday, not Thursday.");
/// assert_eq!(old.as_deref(), Some("User's flight is on Thursday"));
/// assert_eq!(corrected_statement("Bob likes tea"), None);
/// ```
pub fn corrected_statement(text: &str) -> Option<String> {
    let (head, old) = text.rsplit_once(", not ")?;
    let old = old.trim().trim_end_matches(['.', '!', ';']).trim();
    let n = old.split_whitespace().count();
    let words: Vec<&str> = head.split_whitespace().collect();
    if n == 0 || n >= words.len() || old.contains(['\n', ',']) {
        return None;
    }
    Some(format!("{} {old}", words[..words.len() - n].join(" ")))
}

/// Marks `routing` as the correction the user labelled it ("Correction:", "Actually,", read by
/// [`crate::trigger::correction_label`] from before the request): type `correction`, and an
/// episode entry besides the stores chosen, so the log says when it was corrected. Steps and
/// vault notes stay as they are (an episode would copy a note that is kept apart).
pub fn as_correction(routing: &mut Routing, label: &str) {
    if routing.stores.iter().any(|s| matches!(s, Store::Procedural | Store::Vault)) {
        return;
    }
    // The tag that named the kind names the correction now.
    let was = routing.entry_type.as_str();
    routing.tags.retain(|t| t != "correction");
    if let Some(t) = routing.tags.iter_mut().find(|t| *t == was) {
        "correction".clone_into(t);
    }
    routing.entry_type = EntryType::Correction;
    routing.reason.push(format!("type correction: the request is labelled {label:?}"));
    if !routing.stores.contains(&Store::Episodic) {
        routing.stores.push(Store::Episodic);
        routing.reason.push("store episodic: a correction is logged on the day it was made".into());
    }
}

/// Like [`route`], with the store rules alone: no learned store model. What training compares
/// the model with.
pub fn route_rules(content: &str, trigger_phrase: Option<&str>, ctx: &RouteContext) -> Routing {
    route_in(content, trigger_phrase, ctx, false)
}

fn route_in(
    content: &str,
    trigger_phrase: Option<&str>,
    ctx: &RouteContext,
    learn: bool,
) -> Routing {
    // "Zoë" typed decomposed ("e" and a combining mark) is the letter it stands for: read as it
    // was, a name stops at the mark ("Zoe").
    let composed: String;
    let content = if unicode_normalization::is_nfc(content) {
        content
    } else {
        composed = content.nfc().collect();
        &composed
    };
    let lc = content.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
    // "we keep halal at home": the household's diet is the user's own too.
    let first_person = is_first_person(&lc)
        || stores::ja_first_person(content)
        || stores::household_diet(&lc).is_some();
    let choice = stores::choose(content, trigger_phrase.unwrap_or(""), first_person, learn);
    let kind = choice.kind;
    let mut reason = choice.reasons();

    let (mut entities, relations) = extract(content, &lc, first_person, ctx, &mut reason);

    let mut stores = choice.stores.clone();
    // The semantic store keeps facts in entity files: with no entity named, the topic of the
    // fact becomes one ("our staging host is …" → concept--staging-host), when the fact is what
    // the memory is or a decision that holds from now on.
    if stores.contains(&Store::Semantic) && entities.is_empty() {
        let content_store = stores.iter().find(|s| **s != Store::Vault).copied();
        // A decision holds from now on too: its topic keeps it (家計簿アプリは…に一本化することに
        // 決めた → concept--家計簿アプリ).
        let topic = (content_store == Some(Store::Semantic) || kind == Kind::Decision)
            .then(|| topic_entity(content))
            .flatten();
        if let Some(t) = topic {
            reason.push(format!("entity {}: the topic of the fact (no name in the text)", t.id));
            entities.push(t);
        } else {
            stores.retain(|s| *s != Store::Semantic);
            if !stores.contains(&Store::Episodic) {
                let at = usize::from(stores.first() == Some(&Store::Vault));
                stores.insert(at, Store::Episodic);
            }
            reason.push(
                "store episodic: no entity or topic to hold the fact, so the episode log keeps it"
                    .into(),
            );
        }
    }
    let core_update = stores.contains(&Store::Core);
    let entry_type = match kind {
        Kind::Preference => EntryType::Preference,
        Kind::Decision => EntryType::Decision,
        Kind::Event => EntryType::Event,
        Kind::Task => EntryType::Task,
        Kind::Correction => EntryType::Correction,
        Kind::Rule => EntryType::Preference,
        Kind::Procedure | Kind::Fact => EntryType::Fact,
    };
    // Pinned or marked important counts as asked for, even when only mentioned.
    let marked = choice.why.iter().any(|(s, w)| *s == Store::Vault || w.starts_with("marked"));
    let confidence =
        if trigger_phrase.is_some() || marked { Confidence::High } else { Confidence::Medium };
    reason.push(format!(
        "confidence {}: {}",
        confidence.as_str(),
        if trigger_phrase.is_some() { "the user asked for it" } else { "mentioned in passing" }
    ));
    let tags = tags(kind, &entities, &lc);
    let summary = summarize(content, &ctx.user_name);
    let mut routing = Routing {
        store: stores[0],
        stores,
        entities,
        relations,
        tags,
        confidence,
        core_update,
        summary,
        entry_type,
        reason,
    };
    if let Some(name) = own_name(content) {
        name_the_user(&mut routing, &name, ctx);
    }
    routing
}

/// The name the user gives themself at the start of `content`: "my name is Sam Rivera", "my
/// name's Sam", "call me Sam", "I go by Sam". The name is one to four words of letters (`'`
/// and `-` too), up to the first other sign or "and"; after "call me" and "I go by" it must
/// start with a capital ("call me tomorrow" names no one). Lower-case words get a capital.
fn own_name(content: &str) -> Option<String> {
    let text = content.trim_start().replace('\u{2019}', "'");
    let lower = text.to_lowercase();
    let (rest, capital) = ["my name is ", "my name's ", "call me ", "i go by "]
        .iter()
        .find(|p| lower.starts_with(**p))
        .map(|p| (&text[p.len()..], !p.starts_with("my ")))?;
    let mut words = Vec::new();
    for w in rest.split(' ') {
        let core = w.trim_end_matches(['.', ',', '!', '?', ';', ':']);
        let is_word = !core.is_empty()
            && core.chars().all(|c| c.is_alphabetic() || c == '\'' || c == '-')
            && !core.eq_ignore_ascii_case("and");
        if !is_word || words.len() == 4 {
            break;
        }
        words.push(core);
        if core.len() < w.len() {
            break; // a sign ends the name
        }
    }
    let first = words.first()?;
    if capital && !first.starts_with(char::is_uppercase) {
        return None;
    }
    let capitalised: Vec<String> = words
        .iter()
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
        })
        .collect();
    Some(capitalised.join(" "))
}

/// Routes the user's own name as what it is: the `Name:` of the user, written to MEMORY.md's
/// Identity (where `hear` reads who the user is) and to the user's entity, never as a new person
/// or onto another person who shares the name.
fn name_the_user(routing: &mut Routing, name: &str, ctx: &RouteContext) {
    let user = ctx.user.to_string();
    routing.entities =
        vec![RoutedEntity { id: user.clone(), name: ctx.user_name.clone(), kind: "person".into() }];
    routing.relations.clear();
    routing.stores = vec![Store::Semantic, Store::Core];
    routing.store = Store::Semantic;
    routing.core_update = true;
    routing.entry_type = EntryType::Preference;
    routing.summary = format!("Name: {name}");
    routing.reason.retain(|r| !r.starts_with("entity ") && !r.starts_with("store "));
    routing.reason.push(format!(
        "entity {user}: the user gives their own name, written as its Name (no other person)"
    ));
    routing.reason.push("store core: the user's name, under Identity".into());
}

fn is_first_person(lc: &str) -> bool {
    let padded = format!(" {} ", lc.replace(['.', ',', '!', '?', ';', ':'], " "));
    [" i ", " i'm ", " im ", " i've ", " i'd ", " i'll ", " my ", " me ", " mine ", " myself "]
        .iter()
        .any(|w| padded.contains(w))
}

/// Roles that make the name after "of" an organisation ("the CTO of Acme").
const JOB_TITLES: &[&str] = &[
    "ceo",
    "cto",
    "cfo",
    "coo",
    "vp",
    "head",
    "director",
    "manager",
    "founder",
    "co-founder",
    "cofounder",
    "lead",
    "president",
    "owner",
    "chair",
    "member",
    "engineer",
    "employee",
    "intern",
];

const STOP_CAPS: &[&str] = &[
    // Days and the months that are not also first names: dates, not entities.
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "January",
    "February",
    "March",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Had",
    "How",
    "What",
    "Why",
    "Where",
    "Who",
    "When",
    "Which",
    "Can",
    "Could",
    "Would",
    "Should",
    "Will",
    "Did",
    "Do",
    "Does",
    "Is",
    "Are",
    "Was",
    "Were",
    "Has",
    "Have",
    "Let",
    "Let's",
    "Hey",
    "Hi",
    "Hello",
    "Thanks",
    "Sorry",
    "Maybe",
    "Please",
    "Got",
    "Going",
    "Need",
    "Tell",
    "Make",
    "Take",
    "Keep",
    "Check",
    "Send",
    "Remind",
    "Save",
    "Add",
    "Use",
    "Try",
    "Call",
    "Buy",
    "Book",
    "Pick",
    "Bring",
    "Ask",
    "Find",
    "Get",
    "Put",
    "Set",
    "Write",
    "Read",
    "Meet",
    "Met",
    "Went",
    "Came",
    "Saw",
    "Told",
    "Said",
    "Started",
    "Finished",
    "Tonight",
    "There",
    "Here",
    "Some",
    "Any",
    "All",
    "Most",
    "Many",
    "Much",
    "One",
    "Two",
    "First",
    "Second",
    "Then",
    "Now",
    "Once",
    "I",
    "I'm",
    "I've",
    "I'd",
    "I'll",
    "The",
    "A",
    "An",
    "My",
    "We",
    "Our",
    "It",
    "This",
    "That",
    "These",
    "Those",
    "He",
    "She",
    "They",
    "His",
    "Her",
    "Their",
    "You",
    "Your",
    "Please",
    "Also",
    "But",
    "And",
    "Or",
    "If",
    "When",
    "Then",
    "So",
    "In",
    "On",
    "At",
    "For",
    "To",
    "From",
    "With",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Today",
    "Tomorrow",
    "Yesterday",
    "OK",
    "Ok",
    "Yes",
    "No",
    "Note",
    "Important",
    "Remember",
    "Don't",
    "Always",
    "Never",
    "Every",
    "Each",
    "Next",
    "Last",
    "After",
    "Before",
    "Actually",
    "Because",
    "Since",
    "Just",
];

/// The entity type of a name the text gives to a thing: "the printer on floor 2 is called
/// Gutenberg" → `tool`, "our meeting room is named Everest" → `place`, "a guy called Pat" →
/// `person`, anything else named → `concept`. `None` when the words before the name are not
/// "(is) called" or "(is) named" after a noun phrase ("I called Bob").
fn named_thing_kind(before: &str) -> Option<&'static str> {
    let b = before.trim_end();
    let rest = ["is called", "was called", "'s called", "is named", "was named", "called", "named"]
        .iter()
        .find_map(|c| b.strip_suffix(c))?;
    let words: Vec<&str> = rest.split_whitespace().rev().take(8).collect::<Vec<_>>();
    let words: Vec<&str> = words.into_iter().rev().collect();
    const DETERMINERS: &[&str] =
        &["the", "our", "my", "a", "an", "this", "that", "their", "his", "her", "your"];
    const PREPOSITIONS: &[&str] =
        &["on", "in", "at", "of", "for", "with", "from", "by", "near", "next", "behind"];
    let d = words.iter().rposition(|w| DETERMINERS.contains(w))?;
    let head: Vec<&str> =
        words[d + 1..].iter().copied().take_while(|w| !PREPOSITIONS.contains(w)).collect();
    let noun = head.last()?;
    Some(kin::thing_kind(noun).unwrap_or("concept"))
}

/// A capitalised name in the text, with its byte range; `titled` when an honorific went
/// before it ("Dr. Suzuki").
#[derive(Debug, Clone)]
struct Name {
    /// The type [`names::judge`] gives it, when its message makes it clear.
    judged: Option<&'static str>,
    text: String,
    start: usize,
    end: usize,
    titled: bool,
}

/// Tells whether a capitalised word can be part of a name.
fn is_name_word(w: &str) -> bool {
    !STOP_CAPS.contains(&w) && !kin::is_honorific(w) && !kin::is_role_acronym(w)
}

fn capitalised_names(content: &str) -> Vec<Name> {
    let mut out = Vec::new();
    let mut words: Vec<(usize, usize, &str)> = Vec::new();
    let mut pos = 0;
    for w in content.split(|c: char| c.is_whitespace()) {
        let start = content[pos..].find(w).map_or(pos, |i| pos + i);
        let end = start + w.len();
        pos = end;
        let t = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-' && c != '.');
        let t = t.trim_end_matches('.').trim_end_matches("'s").trim_end_matches('\'');
        if t.is_empty() {
            words.push((start, end, ""));
            continue;
        }
        let lead = w.len() - w.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
        words.push((start + lead, start + lead + t.len(), t));
    }
    let mut i = 0;
    while i < words.len() {
        let (s, _, w) = words[i];
        let is_cap = w.chars().next().is_some_and(char::is_uppercase) && is_name_word(w);
        if !is_cap {
            i += 1;
            continue;
        }
        // "Dr. Suzuki": the honorific is not part of the name, but says it is someone.
        let titled = i > 0 && kin::is_honorific(words[i - 1].2) && !words[i - 1].2.is_empty();
        let mut j = i;
        let mut end = words[i].1;
        while j + 1 < words.len() {
            let (_, e2, w2) = words[j + 1];
            let raw_gap = &content[end..words[j + 1].0];
            if raw_gap.trim().is_empty()
                && w2.chars().next().is_some_and(char::is_uppercase)
                && is_name_word(w2)
            {
                j += 1;
                end = e2;
            } else {
                break;
            }
        }
        out.push(Name { text: content[s..end].to_owned(), start: s, end, titled, judged: None });
        i = j + 1;
    }
    out
}

/// The entity for a name: a known entity with that name or alias first (one of type `kind`
/// when several share it), else a new `kind--slug`.
fn entity_for(name: &str, kind: &str, ctx: &RouteContext) -> Option<RoutedEntity> {
    let lower = name.to_lowercase();
    let known = |k: &&KnownEntity| k.names.contains(&lower);
    if let Some(k) = ctx
        .known
        .iter()
        .filter(known)
        .find(|k| k.id.kind() == kind)
        .or_else(|| ctx.known.iter().find(known))
    {
        return Some(RoutedEntity {
            id: k.id.to_string(),
            name: name.to_owned(),
            kind: k.id.kind().to_owned(),
        });
    }
    let slug = slugify(name);
    let id = EntityId::parse(&format!("{kind}--{slug}")).ok()?;
    Some(RoutedEntity { id: id.to_string(), name: name.to_owned(), kind: kind.to_owned() })
}

/// The person a role stands for when the text gives no name ("my dentist"):
/// `person--<user>-<role>`, or the known entity that has that id as an alias (kept by `graph
/// rename` once the name was learned).
fn unnamed_person(role: &kin::Role, ctx: &RouteContext) -> Option<RoutedEntity> {
    let user_slug = ctx.user.as_str().split_once("--").map_or("user", |(_, s)| s);
    let id = EntityId::parse(&format!("person--{user_slug}-{}", role.canonical)).ok()?;
    let name = format!("{}'s {}", ctx.user_name, role.canonical.replace('-', " "));
    if let Some(k) =
        ctx.known.iter().find(|k| k.id == id || k.names.iter().any(|n| n == id.as_str()))
    {
        return Some(RoutedEntity { id: k.id.to_string(), name, kind: k.id.kind().to_owned() });
    }
    Some(RoutedEntity { id: id.to_string(), name, kind: "person".into() })
}

fn push_entity(list: &mut Vec<RoutedEntity>, e: RoutedEntity) -> String {
    if let Some(x) = list.iter().find(|x| x.id == e.id) {
        return x.id.clone();
    }
    let id = e.id.clone();
    list.push(e);
    id
}

fn push_relation(list: &mut Vec<RoutedRelation>, from: &str, relation: &str, to: &str) {
    let r =
        RoutedRelation { from: from.to_owned(), relation: relation.to_owned(), to: to.to_owned() };
    if from != to && !list.contains(&r) {
        list.push(r);
    }
}

/// The relation "X is the ROLE of Y" names: a kinship or personal role's relation, `works-at`
/// or `works-on` for a job title at an organisation or project, else `relates-to`.
fn role_of_relation(role: &str, to_kind: &str) -> &'static str {
    if let Some((r, len)) = kin::en_role_prefix(role)
        && len == role.len()
        && !JOB_TITLES.contains(&role)
    {
        return r.relation;
    }
    match to_kind {
        "organization" => "works-at",
        "project" => "works-on",
        _ => "relates-to",
    }
}

fn extract(
    content: &str,
    lc: &str,
    first_person: bool,
    ctx: &RouteContext,
    reason: &mut Vec<String>,
) -> (Vec<RoutedEntity>, Vec<RoutedRelation>) {
    let mut entities: Vec<RoutedEntity> = Vec::new();
    let mut relations: Vec<RoutedRelation> = Vec::new();
    let user_id = ctx.user.to_string();
    let user = || RoutedEntity {
        id: ctx.user.to_string(),
        name: ctx.user_name.clone(),
        kind: "person".into(),
    };
    if first_person {
        push_entity(&mut entities, user());
        reason.push(format!("entity {}: the user speaks in the first person", ctx.user));
    }
    // Entities the workspace already knows, by name or alias.
    let mut known_hits: Vec<(String, String)> = Vec::new();
    for k in &ctx.known {
        let said: Vec<&String> = k
            .names
            .iter()
            .filter(|n| !n.is_empty() && contains_words(lc, n) && is_named(content, n))
            .collect();
        if !said.is_empty() && !entities.iter().any(|e| e.id == k.id.as_str()) {
            known_hits.extend(said.into_iter().map(|n| (k.id.to_string(), n.clone())));
            entities.push(RoutedEntity {
                id: k.id.to_string(),
                name: k.names.first().cloned().unwrap_or_default(),
                kind: k.id.kind().to_owned(),
            });
            reason.push(format!("entity {}: a known entity is named", k.id));
        }
    }
    // People named by their role to the user: "my sister Hana", "Dr. Suzuki is my dentist",
    // "上司の田中さん". Their names are taken here, so no rule below retypes them.
    let mut claimed: Vec<(usize, usize)> = Vec::new();
    let mut explained: Vec<String> = Vec::new();
    let mut unnamed: Vec<(usize, String)> = Vec::new();
    for m in kin::mentions(content, &is_name_word) {
        let e = match &m.name {
            Some(n) => {
                claimed.push((n.start, n.end));
                entity_for(&n.text, "person", ctx)
            }
            None => unnamed_person(m.role, ctx),
        };
        let Some(e) = e else { continue };
        let id = push_entity(&mut entities, e);
        if m.name.is_none() {
            unnamed.push((m.end, id.clone()));
        }
        if !explained.contains(&id) {
            reason.push(format!(
                "entity {id}: the user's {} ({:?}, relation {})",
                m.role.canonical.replace('-', " "),
                m.role.word,
                m.role.relation
            ));
            explained.push(id.clone());
        }
        push_relation(&mut relations, &id, m.role.relation, &user_id);
        // 妹のハナは京都に住んでいる / 姉は大阪に住んでいる: where the person lives.
        let subject_end = m.name.as_ref().map_or(m.end, |n| n.end);
        if let Some(place) = kin::ja_home_after(content, subject_end)
            && let Some(p) = entity_for(&place, "place", ctx)
        {
            let to = push_entity(&mut entities, p);
            if !explained.contains(&to) {
                reason.push(format!("entity {to}: the place {id} lives in"));
                explained.push(to.clone());
            }
            push_relation(&mut relations, &id, "lives-in", &to);
        }
    }
    // A capitalised title in "the CTO of" is a role, not an entity.
    // Typed as `remember` types them where `names` reads the same name (one owner of what a
    // message makes clear), narrowed to it ("Called Tom" is Tom); the rest as before.
    let occurrences = names::occurrences(content);
    let names: Vec<Name> = capitalised_names(content)
        .into_iter()
        .filter_map(|n| {
            let inside: Vec<&names::Occurrence> = occurrences
                .iter()
                .filter(|o| o.span.start >= n.start && o.span.end <= n.end)
                .collect();
            let plain = n.text.chars().all(|c| c.is_alphabetic() || c == ' ');
            match inside.as_slice() {
                [o] => Some(Name {
                    text: o.name.clone(),
                    start: o.span.start,
                    end: o.span.end,
                    titled: n.titled || o.titled && !o.label,
                    judged: names::judge(o),
                }),
                // A plain word `names` does not take for a name ("Lunch with …") is none; one
                // with digits or signs ("S3", "SMTP_HOST") and a role word that holds facts
                // ("Grandma can't hear well") are left to the rules below.
                [] if plain && !names::is_role_word(&n.text.to_lowercase()) => None,
                _ => Some(n),
            }
        })
        .filter(|n| {
            let b = content[..n.start].to_lowercase();
            let a = content[n.end..].to_lowercase();
            !((b.ends_with("the ") || b.ends_with("our ") || b.ends_with("their "))
                && a.starts_with(" of "))
        })
        .collect();
    let before = |n: &Name| content[..n.start].to_lowercase();
    let after = |n: &Name| content[n.end..].to_lowercase();
    for n in &names {
        if claimed.iter().any(|&(s, e)| n.start < e && s < n.end) {
            continue; // named by a role above
        }
        let b = before(n);
        let b = b.trim_end();
        let a = after(n);
        let a = a.trim_start();
        let first_word = n.text.split(' ').next().unwrap_or("");
        let kind = if let Some(k) = named_thing_kind(b) {
            k
        } else if n.titled {
            "person"
        } else if JOB_TITLES
            .iter()
            .any(|t| b.ends_with(&format!("{t} of")) || b.ends_with(&format!("{t} at")))
        {
            "organization"
        } else if b.ends_with("project") || a.starts_with("project") {
            "project"
        } else if [
            "works at",
            "work at",
            "works for",
            "work for",
            "joined",
            "employed by",
            "hired by",
        ]
        .iter()
        .any(|p| b.ends_with(p))
            || ["inc", "corp", "ltd", "llc", "gmbh", "company", "co."]
                .iter()
                .any(|p| n.text.to_lowercase().ends_with(p))
        {
            "organization"
        } else if let Some(k) = n.judged {
            // What the message makes clear, as `remember` links it (one owner: `names`).
            k
        } else if kin::is_given_name(first_word) && !names::looks_like_tool(&n.text) {
            // A first name alone names someone ("Priya leads payments").
            "person"
        } else if [
            "lives in",
            "live in",
            "moved to",
            "move to",
            "living in",
            "based in",
            "visit",
            "visited",
            "trip to",
            "flight to",
            "born in",
        ]
        .iter()
        .any(|p| b.ends_with(p))
        {
            "place"
        } else if names::looks_like_tool(&n.text)
            || [
                "prefer",
                "prefers",
                "use",
                "uses",
                "using",
                "over",
                "than",
                "switch to",
                "switched to",
                "instead of",
            ]
            .iter()
            .any(|p| b.ends_with(p))
        {
            if names::looks_like_tool(&n.text) { "tool" } else { "concept" }
        } else if n.text.contains(' ') && !names::looks_like_person(b, a) {
            "concept"
        } else if names::looks_like_person(b, a) {
            "person"
        } else {
            // A bare capitalised word with nothing saying it is someone ("Atlas is late") is
            // a concept: calling a project a person would put it in the wrong file for good.
            "concept"
        };
        let Some(e) = entity_for(&n.text, kind, ctx) else { continue };
        let id = push_entity(&mut entities, e);
        if !explained.contains(&id)
            && !ctx.known.iter().any(|k| k.id.as_str() == id)
            && id != user_id
        {
            let e = entities.iter().find(|e| e.id == id).expect("just pushed");
            reason.push(format!("entity {}: a {} named in the text", e.id, e.kind));
            explained.push(id);
        }
        if entities.len() >= 6 {
            break;
        }
    }
    drop_shadowed(&mut entities, &known_hits, lc, reason);
    let find = |name: &str| {
        entities.iter().find(|e| e.name.eq_ignore_ascii_case(name)).map(|e| e.id.clone())
    };
    let kind_of = |id: &str| id.split_once("--").map_or("", |(k, _)| k).to_owned();
    // Relations from bounded patterns over capitalised names.
    for (i, n) in names.iter().enumerate() {
        let Some(from) = find(&n.text) else { continue };
        let a = content[n.end..].to_lowercase();
        let a = a.trim_start();
        let next = names.get(i + 1);
        let Some(next) = next else { continue };
        let Some(to) = find(&next.text) else { continue };
        let between = content[n.end..next.start].to_lowercase();
        let between = between.trim();
        let rel = match between {
            "works at" | "works for" | "is at" | "joined" => Some("works-at"),
            "works on" | "is working on" | "leads" | "runs" => Some("works-on"),
            "lives in" | "moved to" | "is based in" | "is in" => Some("lives-in"),
            "uses" | "is using" | "relies on" => Some("uses"),
            "depends on" | "requires" | "needs" => Some("depends-on"),
            "is part of" | "belongs to" => Some("part-of"),
            "prefers" | "likes" | "loves" => Some("prefers"),
            "replaced" | "replaces" | "supersedes" => Some("supersedes"),
            "is married to" | "married" | "is the spouse of" => Some("spouse-of"),
            "is engaged to" | "is dating" | "is going out with" => Some("partner-of"),
            "is friends with" | "is a friend of" | "is best friends with" => Some("friend-of"),
            "reports to" => Some("reports-to"),
            "manages" => Some("manages"),
            "mentors" => Some("mentors"),
            _ => None,
        };
        if let Some(rel) = rel {
            push_relation(&mut relations, &from, rel, &to);
            continue;
        }
        // X is Y's sister
        if between == "is" {
            let after_next = content[next.end..].to_lowercase().replace('’', "'");
            if let Some(role) = after_next.strip_prefix("'s ")
                && let Some((r, _)) = kin::en_role_prefix(role)
            {
                push_relation(&mut relations, &from, r.relation, &to);
                continue;
            }
        }
        // X is the Y of Z
        if let Some(role) =
            between.strip_prefix("is the").and_then(|r| r.trim().strip_suffix(" of"))
        {
            if !role.is_empty() && role.len() <= 30 {
                push_relation(&mut relations, &from, role_of_relation(role, &kind_of(&to)), &to);
            }
            continue;
        }
        // X replaced Y as …
        if a.starts_with("replaced") || a.starts_with("has replaced") {
            push_relation(&mut relations, &from, "supersedes", &to);
        }
    }
    // my sister lives in Osaka / my dentist moved to Kyoto: the unnamed person is the subject.
    for (end, id) in &unnamed {
        let Some(n) = names.iter().find(|n| n.start >= *end) else { continue };
        let between = content[*end..n.start].to_lowercase();
        let rel = match between.trim() {
            "lives in" | "moved to" | "is based in" | "now lives in" => "lives-in",
            "works at" | "works for" | "joined" | "now works at" => "works-at",
            "works on" | "is working on" => "works-on",
            _ => continue,
        };
        if let Some(to) = find(&n.text) {
            push_relation(&mut relations, id, rel, &to);
        }
    }
    // I prefer X (over Y) / I use X / I avoid X
    if first_person {
        for (verbs, rel) in [
            (
                &[
                    "i prefer",
                    "i'd prefer",
                    "i would prefer",
                    "i like",
                    "i love",
                    "i enjoy",
                    "i'd rather use",
                    "i'd rather",
                ][..],
                "prefers",
            ),
            (&["i use", "i'm using", "i am using", "i work with"][..], "uses"),
            (
                &[
                    "i hate",
                    "i dislike",
                    "i avoid",
                    "i don't like",
                    "i do not like",
                    "i can't stand",
                ][..],
                "avoids",
            ),
            (&["i work at", "i work for", "i joined"][..], "works-at"),
            (&["i live in", "i moved to", "i'm based in", "i am based in"][..], "lives-in"),
            (&["i work on", "i'm working on", "i am working on"][..], "works-on"),
        ] {
            for v in verbs {
                let Some(i) = lc.find(v) else { continue };
                let obj_start = i + v.len();
                if let Some(n) = names.iter().find(|n| {
                    n.start >= obj_start
                        && content[obj_start..n.start].split_whitespace().count() <= 2
                }) && let Some(to) = find(&n.text)
                {
                    push_relation(&mut relations, &user_id, rel, &to);
                }
                break;
            }
        }
    }
    for r in &relations {
        reason.push(format!("relation {} {} {}", r.from, r.relation, r.to));
    }
    (entities, relations)
}

fn tags(kind: Kind, entities: &[RoutedEntity], lc: &str) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    let k = match kind {
        Kind::Preference => "preference",
        Kind::Decision => "decision",
        Kind::Procedure => "procedure",
        Kind::Event => "event",
        Kind::Task => "task",
        Kind::Correction => "correction",
        Kind::Fact => "fact",
        Kind::Rule => "rule",
    };
    tags.push(k.to_owned());
    for e in entities {
        let slug = e.id.split_once("--").map_or(e.id.as_str(), |(_, s)| s).to_owned();
        if slug != "user" && !tags.contains(&slug) && tags.len() < 4 {
            tags.push(slug);
        }
    }
    if tags.len() < 2 {
        let mut words: Vec<&str> = crate::word::segments(lc)
            .into_iter()
            .map(|(from, to)| &lc[from..to])
            .filter(|w| w.len() > 3 && !stopword::is_english(w, Tier::Topic))
            .collect();
        words.sort_by_key(|w| std::cmp::Reverse(w.len()));
        if let Some(w) =
            words.first().filter(|w| w.chars().count() <= 20 && !w.chars().any(crate::word::is_cjk))
        {
            tags.push((*w).to_owned());
        }
    }
    tags.truncate(5);
    tags
}

/// Rewrites a first-person opening into the third person ("I prefer X" → "User prefers X"),
/// and "my" elsewhere into the user's ("Dr. Suzuki is my dentist" → "Dr. Suzuki is the
/// user's dentist"; with a named user, "Sam's dentist").
pub fn summarize(content: &str, user: &str) -> String {
    let one = crate::markdown::one_line(content);
    let mut words: Vec<String> = one.split(' ').map(str::to_owned).collect();
    if words.is_empty() {
        return one;
    }
    let first = words[0].replace('\u{2019}', "'");
    // "i prefer tea", "i'm allergic": typed in lower case, the pronoun is still the user.
    match first.to_lowercase().as_str() {
        "i'm" => words[0] = format!("{user} is"),
        "im" if first == "Im" => words[0] = format!("{user} is"),
        "i've" => words[0] = format!("{user} has"),
        "i'd" => words[0] = format!("{user} would"),
        "i'll" => words[0] = format!("{user} will"),
        "my" => words[0] = format!("{user}'s"),
        "i" if words.len() > 1 => {
            words[0] = user.to_owned();
            // "I and my wife like…": the verb is the pair's, not the user's.
            let joined = matches!(words[1].to_lowercase().as_str(), "and" | "or" | "&");
            // "I really like tea", "I no longer live…", "I hardly ever eat…": the adverbs
            // stay, the verb after them agrees.
            let mut verb = 1;
            while verb + 1 < words.len() {
                let w = words[verb].to_lowercase();
                if w == "no" && words[verb + 1].eq_ignore_ascii_case("longer") {
                    verb += 2;
                } else if ADVERBS.contains(&w.as_str()) {
                    verb += 1;
                } else {
                    break;
                }
            }
            if !joined && verb < words.len() {
                words[verb] = third_person(&words[verb]);
            }
        }
        _ => {}
    }
    let owner = if user == "User" { "the user's".to_owned() } else { format!("{user}'s") };
    for w in words.iter_mut().skip(1) {
        if w == "my" {
            w.clone_from(&owner);
        }
    }
    words.join(" ")
}

/// Adverbs that stand between "I" and its verb ("I really like", "I usually take").
const ADVERBS: &[&str] = &[
    "really",
    "also",
    "always",
    "never",
    "usually",
    "often",
    "just",
    "still",
    "already",
    "actually",
    "sometimes",
    "rarely",
    "only",
    "even",
    "definitely",
    "mostly",
    "probably",
    "generally",
    "normally",
    "totally",
    "honestly",
    "seriously",
    "absolutely",
    "hardly",
    "barely",
    "scarcely",
    "seldom",
    "ever",
    "now",
    "currently",
    "recently",
    "finally",
    "once",
    "myself",
];

/// Past forms without -ed that stay as they are ("I met" is not "User mets").
const IRREGULAR_PAST: &[&str] = &[
    "met",
    "went",
    "got",
    "saw",
    "made",
    "took",
    "came",
    "gave",
    "found",
    "told",
    "said",
    "left",
    "bought",
    "brought",
    "thought",
    "knew",
    "ran",
    "began",
    "wrote",
    "sent",
    "spent",
    "lost",
    "paid",
    "built",
    "felt",
    "kept",
    "heard",
    "held",
    "meant",
    "sold",
    "won",
    "broke",
    "chose",
    "drove",
    "ate",
    "drank",
    "flew",
    "forgot",
    "slept",
    "taught",
    "caught",
    "fell",
    "grew",
    "became",
    "swam",
    "sang",
    "sat",
    "stood",
    "understood",
    "woke",
    "wore",
    "threw",
    "rode",
    "spoke",
    "stole",
    "forgave",
    "hid",
    "led",
    "fed",
    "fought",
    "sought",
    "dug",
    "hung",
];

fn third_person(word: &str) -> String {
    // "I can't.": the verb without what follows it.
    let end = word.trim_end_matches(|c: char| c.is_ascii_punctuation() && c != '\'').len();
    let (verb, rest) = word.split_at(end);
    let lower = verb.to_lowercase().replace('\u{2019}', "'");
    if IRREGULAR_PAST.contains(&lower.as_str())
        || ADVERBS.contains(&lower.as_str())
        || !verb.chars().all(|c| c.is_alphabetic() || c == '\'' || c == '\u{2019}')
    {
        return word.into();
    }
    let apostrophe = if verb.contains('\u{2019}') { "\u{2019}" } else { "'" };
    let conjugated = match lower.as_str() {
        "am" => "is".into(),
        "have" => "has".into(),
        "do" => "does".into(),
        "go" => "goes".into(),
        "was" | "will" | "would" | "can" | "could" | "should" | "must" | "might" | "may"
        | "did" | "had" | "cannot" | "shall" => verb.into(),
        "don't" => format!("doesn{apostrophe}t"),
        "haven't" => format!("hasn{apostrophe}t"),
        "aren't" => format!("isn{apostrophe}t"),
        // can't, won't, didn't, shouldn't, couldn't, wasn't…: a modal or a past, as it is.
        _ if lower.ends_with("n't") => verb.into(),
        // "need", "feed", "proceed" are present tense despite their -ed (issue 18: "User need to").
        "need" | "feed" | "proceed" | "succeed" | "exceed" | "bleed" | "breed" | "speed"
        | "heed" | "seed" | "embed" => format!("{verb}s"),
        _ if lower.ends_with("ed") => verb.into(),
        _ if lower.ends_with(['s', 'x', 'z']) || lower.ends_with("ch") || lower.ends_with("sh") => {
            format!("{verb}es")
        }
        // study → studies; buy, play, obey, enjoy → buys, plays, obeys, enjoys.
        _ if lower.strip_suffix('y').is_some_and(|stem| !stem.ends_with(['a', 'e', 'o', 'u'])) => {
            format!("{}ies", &verb[..verb.len() - 1])
        }
        _ => format!("{verb}s"),
    };
    conjugated + rest
}

/// A routing answer from the host model (`cogmem remember --routing`), validated strictly.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoutingAnswer {
    /// The main store.
    #[serde(default)]
    pub store: Option<String>,
    /// All stores.
    #[serde(default)]
    pub stores: Option<Vec<String>>,
    /// Entities as `{name, type}`, `{id}` or id strings.
    #[serde(default)]
    pub entities: Vec<AnswerEntity>,
    /// Relations between entity ids.
    #[serde(default)]
    pub relations: Vec<RoutedRelation>,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// `high`, `medium` or `low`.
    #[serde(default)]
    pub confidence: Option<String>,
    /// Whether MEMORY.md gets a bullet too.
    #[serde(default)]
    pub core_update: bool,
    /// The sentence to store instead of the raw text.
    #[serde(default)]
    pub summary: Option<String>,
    /// Episode entry type.
    #[serde(default, rename = "type")]
    pub entry_type: Option<String>,
    /// Ignored: the model's explanation.
    #[serde(default)]
    pub reason: Option<serde_json::Value>,
}

/// An entity in a routing answer.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum AnswerEntity {
    /// An id such as `person--alice`.
    Id(String),
    /// `{"id": "person--alice"}` or `{"name": "Alice", "type": "person"}`.
    Object(AnswerEntityObject),
}

/// An entity given as an object; other keys are refused.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerEntityObject {
    /// The id, if given.
    #[serde(default)]
    pub id: Option<String>,
    /// The name.
    #[serde(default)]
    pub name: Option<String>,
    /// The type.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
}

/// A validated routing answer, ready to write.
#[derive(Debug, Clone)]
pub struct ValidRouting {
    /// Stores, main first.
    pub stores: Vec<Store>,
    /// Entity ids.
    pub entities: Vec<EntityId>,
    /// The entity names the answer gave (`{"name", "type"}`), as given: their ids hold only
    /// their slugs, and the secret check reads what the model wrote.
    pub names: Vec<String>,
    /// Relations `(from, relation, to)`.
    pub relations: Vec<(EntityId, String, EntityId)>,
    /// Tags.
    pub tags: Vec<String>,
    /// Confidence.
    pub confidence: Option<Confidence>,
    /// Text to store instead of the raw text.
    pub summary: Option<String>,
    /// Episode entry type.
    pub entry_type: Option<EntryType>,
}

impl RoutingAnswer {
    /// Parses and validates a JSON answer.
    ///
    /// Errors name the field: an unknown store, a bad entity id, a missing store.
    pub fn parse(json: &str) -> Result<ValidRouting, InputError> {
        let bad = |why: String| InputError::Routing { why };
        let a: Self =
            serde_json::from_str(json).map_err(|e| bad(format!("line {}: {e}", e.line())))?;
        let mut stores = Vec::new();
        for s in a.store.iter().chain(a.stores.iter().flatten()) {
            let store = Store::ALL
                .into_iter()
                .find(|x| x.as_str() == s.trim())
                .ok_or_else(|| bad(format!("unknown store {s:?} (expected core, episodic, semantic, procedural or vault)")))?;
            if !stores.contains(&store) {
                stores.push(store);
            }
        }
        if a.core_update && !stores.contains(&Store::Core) {
            stores.push(Store::Core);
        }
        if stores.is_empty() {
            return Err(bad("missing field `store` (or `stores`)".into()));
        }
        let mut entities = Vec::new();
        let mut names = Vec::new();
        for e in &a.entities {
            let id = match e {
                AnswerEntity::Id(id)
                | AnswerEntity::Object(AnswerEntityObject { id: Some(id), .. }) => id.clone(),
                AnswerEntity::Object(AnswerEntityObject {
                    id: None,
                    name: Some(name),
                    kind: Some(kind),
                }) => {
                    names.push(name.clone());
                    format!("{}--{}", kind.trim(), slugify(name))
                }
                AnswerEntity::Object(_) => {
                    return Err(bad("an entity needs `id`, or `name` and `type`".into()));
                }
            };
            entities.push(EntityId::parse(&id).map_err(|e| bad(format!("entities: {e}")))?);
        }
        let mut relations = Vec::new();
        for r in &a.relations {
            let from = EntityId::parse(&r.from).map_err(|e| bad(format!("relations: {e}")))?;
            let to = EntityId::parse(&r.to).map_err(|e| bad(format!("relations: {e}")))?;
            if !crate::model::check_relation_name(&r.relation) {
                return Err(bad(format!(
                    "relations: {:?} is not a lower-kebab relation name",
                    r.relation
                )));
            }
            relations.push((from, r.relation.clone(), to));
        }
        if stores.contains(&Store::Semantic) && entities.is_empty() && relations.is_empty() {
            return Err(bad("store `semantic` needs at least one entity".into()));
        }
        let confidence = match a.confidence.as_deref() {
            None => None,
            Some(c) => {
                Some(Confidence::parse(c).map_err(|_| bad(format!("unknown confidence {c:?}")))?)
            }
        };
        let entry_type = match a.entry_type.as_deref() {
            None => None,
            Some(t) => Some(EntryType::parse(t).map_err(|e| bad(e.to_string()))?),
        };
        let summary = a.summary.filter(|s| !s.trim().is_empty());
        let mut tags = Vec::new();
        for t in a.tags {
            let t = t.trim().to_owned();
            if t.contains(['[', ']', '|', ',']) {
                return Err(bad(format!("tag {t:?} contains `[`, `]`, `|` or `,`")));
            }
            if !t.is_empty() {
                tags.push(t);
            }
        }
        Ok(ValidRouting {
            stores,
            entities,
            names,
            relations,
            tags,
            confidence,
            summary,
            entry_type,
        })
    }
}

/// Builds the routing prompt for the host model.
pub fn prompt(
    content: &str,
    trigger: &str,
    context: &str,
    core_summary: &str,
    known: &str,
) -> String {
    format!(
        "You file memories for an AI agent whose memory is a folder of Markdown files.\n\
Answer with one JSON object and nothing else:\n\
{{\"stores\": [...], \"entities\": [{{\"name\": \"...\", \"type\": \"...\"}}], \"relations\": [{{\"from\": \"type--slug\", \"relation\": \"...\", \"to\": \"type--slug\"}}], \"tags\": [...], \"confidence\": \"high|medium|low\", \"core_update\": true|false, \"summary\": \"...\", \"type\": \"...\"}}\n\n\
Stores (pick one or more):\n\
- core: changes who the user is, what is going on now, or how the agent must behave; MEMORY.md is small, so rarely\n\
- episodic: something that happened or was decided, worth a dated log entry\n\
- semantic: a fact, preference or relationship about a person, project, tool, concept or place (needs entities)\n\
- procedural: a workflow or how-to, as steps\n\
- vault: the user wants it kept forever, exempt from forgetting\n\
Guide: a preference -> semantic (core only when it changes how the agent behaves); a decision -> episodic + semantic;\n\
a fact -> semantic; a how-to -> procedural; an event -> episodic; marked important -> semantic + vault + core.\n\
Entities: type is person, project, concept, tool, place, organization, preference, decision or event; use the ids\n\
in KNOWN ENTITIES where they fit; the user is person--user unless named. Relations are lower-kebab verbs such as\n\
works-on, prefers, uses, depends-on, part-of, supersedes, lives-in. Tags: 2 to 5 short words.\n\
Confidence: high when the user asked to remember it or called it important, medium when mentioned in passing,\n\
low when inferred. summary: one sentence in the third person, as it should be stored.\n\n\
CONTENT: {content}\n\
TRIGGER: {trigger}\n\
CONTEXT: {context}\n\
CORE MEMORY: {core_summary}\n\
KNOWN ENTITIES: {known}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_example_goes_to_semantic_and_core() {
        let r = route(
            "I prefer TypeScript over JavaScript.",
            Some("Remember that"),
            &RouteContext::default(),
        );
        assert_eq!(r.stores, [Store::Semantic, Store::Core]);
        assert!(r.core_update);
        assert_eq!(r.summary, "User prefers TypeScript over JavaScript.");
        let ids: Vec<&str> = r.entities.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["person--user", "tool--typescript", "tool--javascript"]);
        assert_eq!(
            r.relations,
            [RoutedRelation {
                from: "person--user".into(),
                relation: "prefers".into(),
                to: "tool--typescript".into()
            }]
        );
        assert_eq!(r.confidence, Confidence::High);
        assert_eq!(r.entry_type, EntryType::Preference);
    }

    #[test]
    fn store_selection_table() {
        let ctx = RouteContext::default();
        let cases: [(&str, &[Store]); 8] = [
            ("We decided to use Postgres for Atlas", &[Store::Episodic, Store::Semantic]),
            ("Alice prefers tea", &[Store::Semantic]),
            ("To deploy: 1. run tests\n2. tag\n3. push", &[Store::Procedural]),
            ("Had a call with Bob yesterday about the budget", &[Store::Episodic]),
            // Important adds core; only asking to pin or keep it forever adds the vault.
            ("Important: my passport number is in the safe", &[Store::Semantic, Store::Core]),
            ("Pin this: my passport number is in the safe", &[Store::Vault, Store::Semantic]),
            // A setting with no name in it is filed under its topic (concept--wifi-password).
            ("the wifi password is hunter2", &[Store::Semantic]),
            ("Alice is the CTO of Acme", &[Store::Semantic]),
        ];
        for (input, want) in cases {
            assert_eq!(route(input, Some("remember"), &ctx).stores, want, "input: {input:?}");
        }
    }

    #[test]
    fn relation_patterns() {
        let ctx = RouteContext::default();
        let rels = |t: &str| {
            route(t, None, &ctx)
                .relations
                .into_iter()
                .map(|r| format!("{} {} {}", r.from, r.relation, r.to))
                .collect::<Vec<_>>()
        };
        assert_eq!(rels("Alice is the CTO of Acme"), ["person--alice works-at organization--acme"]);
        let ids = |t: &str| -> Vec<String> {
            route(t, None, &ctx).entities.iter().map(|e| e.id.as_str().to_owned()).collect()
        };
        // Someone only when the words around the name say so; a bare name is a concept, and
        // days and months are dates.
        assert_eq!(ids("Atlas is behind schedule again"), ["concept--atlas"]);
        assert_eq!(ids("Bob likes jazz"), ["person--bob"]);
        assert_eq!(ids("I had lunch with Priya"), ["person--user", "person--priya"]);
        assert_eq!(ids("The review moved to Friday"), Vec::<String>::new());
        assert_eq!(
            rels("my sister Alice lives in Lisbon"),
            ["person--alice sibling-of person--user", "person--alice lives-in place--lisbon"]
        );
        assert_eq!(
            rels("Kafka replaced RabbitMQ as our queue"),
            ["tool--kafka supersedes tool--rabbitmq"]
        );
    }

    #[test]
    fn known_entities_and_user_name() {
        let ctx = RouteContext {
            user: EntityId::parse("person--sam").unwrap(),
            user_name: "Sam".into(),
            known: vec![KnownEntity {
                id: EntityId::parse("project--atlas").unwrap(),
                names: vec!["atlas".into(), "the new app".into()],
            }],
        };
        let r = route("I'm leading the new app launch", None, &ctx);
        let ids: Vec<&str> = r.entities.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["person--sam", "project--atlas"]);
        assert_eq!(r.summary, "Sam is leading the new app launch");
    }

    #[test]
    fn answers_are_validated() {
        let ok = RoutingAnswer::parse(r#"{"store":"semantic","entities":[{"name":"Alice Smith","type":"person"}],"tags":["x"],"confidence":"high","core_update":true,"summary":"Alice likes tea"}"#).unwrap();
        assert_eq!(ok.stores, [Store::Semantic, Store::Core]);
        assert_eq!(ok.entities[0].as_str(), "person--alice-smith");
        let errs = [
            (r#"{"store":"attic"}"#, "unknown store"),
            (r#"{"entities":[]}"#, "missing field `store`"),
            (r#"{"store":"semantic","entities":["person--../x"]}"#, "`..`"),
            (r#"{"store":"semantic"}"#, "needs at least one entity"),
            (r#"{"store":"episodic","stroe":1}"#, "unknown field `stroe`"),
            ("not json", "line 1"),
        ];
        for (input, want) in errs {
            let e = RoutingAnswer::parse(input).unwrap_err().to_string();
            assert!(e.contains(want), "input {input}: {e}");
        }
    }
}
