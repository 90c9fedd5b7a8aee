//! Recall by the shape of a sentence, not by its phrase (issue 18): a question or a look-up
//! addressed to the agent, a word of keeping or telling, and the user or the agent's memory as
//! where it was kept. "Can you look up what I told you about the Postgres settings?", "Is there
//! anything saved about my passport renewal?", "Pull up the notes I asked you to keep on orchid
//! care", 私の車について何か保存してある？, 以前お願いしたルールって何があったか教えて. Each of the
//! three parts has many wordings; the rule asks for one of each, so a new combination of them is
//! heard without a phrase list that names it.
//!
//! The reverse holds too: a question about a song, a film or how memory works, code that
//! "remembers", a request for work, or "I can't remember X" (the user's memory, not the agent's)
//! stays an ordinary message.
//!
//! Also here: a Japanese request that opens with a keeping verb and a colon (保存して：…,
//! 永久に保存して：…, 絶対に消えないようにして：…) is a remember request for what follows the colon.

use super::{
    JA_KEEP_FOR_GOOD, Span, Text, Trigger, TriggerKind, find_word, hit, in_quotes,
    ja_strip_openers, ja_trim_object, sl, starts_word, strip_question, strip_topic, trim_content,
};

/// A word of the sentence: its normalised offsets.
#[derive(Debug, Clone, Copy)]
struct Word {
    start: usize,
    end: usize,
}

/// The words of `s[from..to]` (letters, digits and apostrophes), with absolute offsets.
fn words(s: &str, from: usize, to: usize) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in sl(s, from, to).char_indices() {
        let inside = c.is_alphanumeric() || c == '\'' || c == '_';
        match (inside, start) {
            (true, None) => start = Some(from + i),
            (false, Some(st)) => {
                out.push(Word { start: st, end: from + i });
                start = None;
            }
            _ => {}
        }
    }
    if let Some(st) = start {
        out.push(Word { start: st, end: to });
    }
    out
}

/// Question words and the auxiliaries that open a question.
const QUESTION_OPENERS: &[&str] = &[
    "what",
    "what's",
    "whats",
    "which",
    "where",
    "where's",
    "when",
    "when's",
    "who",
    "who's",
    "how",
    "wat",
    "wut",
    "is there",
    "are there",
    "didn't i",
    "didnt i",
    "was there",
    "do you",
    "did you",
    "have you",
    "did i",
    "have i",
    "had i",
    "did we",
    "have we",
    "any",
    "anything",
    "got anything",
    "you got",
];

/// Imperatives that ask the agent to look something up or say it.
const LOOKUPS: &[&str] = &[
    "look up",
    "look in",
    "look through",
    "look for",
    "pull up",
    "bring up",
    "dig up",
    "check",
    "search",
    "find",
    "fetch",
    "show me",
    "tell me",
    "give me",
    "get me",
    "read me",
    "read back",
    "list",
    "remind me",
    "go through",
];

/// Verbs of telling and keeping, as the user speaks of what they did: "I told you", "I saved",
/// "I asked you to keep", past tense or perfect (present tense — "do you keep everything I
/// say?" — asks how memory works).
const USER_PAST: &[&str] = &[
    "told",
    "said",
    "mentioned",
    "gave",
    "shared",
    "saved",
    "stored",
    "noted",
    "kept",
    "recorded",
    "logged",
    "sent",
    "wrote",
    "put",
    "added",
    "asked",
    "had",
];

/// The same verbs' base forms, after "did I" (or "have I" with the participle: [`USER_PAST`],
/// "given", "written"); see [`user_asked`].
/// Only telling and keeping with the agent: "did I send the invoice?" asks about the world.
const USER_BASE: &[&str] = &["tell", "say", "mention", "give", "share", "save", "note", "ask"];

/// Tells whether a word is a verb of telling or keeping after "did I" / "have I".
fn user_asked(w: &str) -> bool {
    USER_BASE.contains(&w)
        || USER_PAST.contains(&w) && w != "had"
        || matches!(w, "given" | "written")
}

/// Verbs of deciding together, after "did we" / "have we": what was agreed is told.
const DECIDED: &[&str] = &[
    "agree", "agreed", "decide", "decided", "settle", "settled", "pick", "picked", "choose",
    "chosen",
];

/// Verbs of keeping with the agent as the one who kept: "you saved", "you've noted".
const AGENT_KEPT: &[&str] =
    &["saved", "stored", "noted", "kept", "recorded", "logged", "wrote", "written", "filed"];

/// The base forms that follow "asked you to" / "had you": what the agent was asked to do.
const KEEP_BASE: &[&str] = &[
    "keep", "save", "store", "note", "remember", "record", "log", "write", "hold", "track", "add",
];

/// Where the agent keeps things: "in your notes", "your memory".
const AGENT_PLACES: &[&str] =
    &["your memory", "your memories", "your notes", "your records", "your files"];

/// Places that are the agent's only when the sentence speaks to it ("do you have anything on
/// file?"): "store data in memory" is about a program.
const BARE_PLACES: &[&str] = &["in memory", "on file", "on record"];

/// Adverbs that may stand between the subject and the verb: "I think I ever told you".
/// ("just" is not one: "what did I just say?" is about this conversation.)
const ADVERBS: &[&str] = &["ever", "already", "once", "also", "probably", "previously"];

/// Questions about songs, films and poems, their makers and words: general knowledge, whatever
/// the user mentioned ("Who sang the song I mentioned?").
const MEDIA: &[&str] = &[
    "who sang",
    "who sings",
    "who wrote",
    "who directed",
    "who performs",
    "who performed",
    "who played",
    "who starred",
    "lyric",
    "what film",
    "what movie",
    "a poem",
    "the poem",
    "is a poem",
];

/// Tells whether a sentence (normalised) asks about a song, a film or a poem.
pub(super) fn asks_about_media(sentence: &str) -> bool {
    MEDIA.iter().any(|m| find_word(sentence, m).is_some())
}

/// Tells whether a question asks how to do something ("how do I see what I saved in Google
/// Keep?"): a how-to, not a recall.
pub(super) fn asks_how_to(sentence: &str) -> bool {
    ["how do i", "how can i", "how to", "where do i", "where can i"]
        .iter()
        .any(|m| find_word(sentence, m).is_some())
}

/// Tells whether a message asks for writing or other work on a clause of its own ("…? Write a
/// short paragraph about it"): what it recalls only sets up the work.
pub(super) fn asks_for_writing(s: &str) -> bool {
    s.split(['.', ',', '!', '?', ';', '\n', '—'])
        .map(|p| {
            let mut p = p.trim();
            for lead in ["and ", "then ", "please ", "can you ", "could you ", "now "] {
                p = p.strip_prefix(lead).unwrap_or(p);
            }
            p
        })
        .any(|p| WORK.iter().any(|w| starts_word(p, w)))
}

/// Material given in the conversation: files, documents, logs ("code" is not: a door has one;
/// source code is caught by its backticks and brackets).
const MATERIAL: &[&str] = &[
    "file",
    "files",
    "email",
    "emails",
    "document",
    "doc",
    "docs",
    "pdf",
    "log",
    "logs",
    "screenshot",
    "attachment",
    "image",
    "photo",
    "spreadsheet",
    "script",
    "repo",
    "snippet",
    "draft",
];

/// Tells whether a sentence (normalised) names material given in the conversation: a file, an
/// email, logs ("an email address" is a fact, "on file" the agent's memory).
pub(super) fn names_material(sentence: &str) -> bool {
    MATERIAL.iter().any(|m| {
        let mut from = 0;
        while let Some(i) = sentence.get(from..).and_then(|r| find_word(r, m)) {
            let at = from + i + m.len();
            // "on file" is where the agent keeps things.
            let on_file = sentence[..at - m.len()].ends_with("on ");
            if !sentence[at..].trim_start().starts_with("address") && !on_file {
                return true;
            }
            from = at;
        }
        false
    })
}

/// Requests for work: the sentence asks to make something, not to recall.
const WORK: &[&str] = &[
    "write",
    "draft",
    "rewrite",
    "summarize",
    "summarise",
    "translate",
    "proofread",
    "refactor",
    "fix",
    "generate",
    "create",
    "compose",
    "debug",
    "implement",
];

/// "how does your memory work?", "do you keep everything between chats?": how memory works;
/// "what did you think of …?": an opinion; "how do I …?": a how-to; "did I say something
/// wrong?": a judgement.
const MECHANISM: &[&str] = &[
    "how does",
    "how do you",
    "how is",
    "work?",
    "works",
    "feature",
    "between chats",
    "between conversations",
    "between sessions",
    "across sessions",
    "across chats",
    "across conversations",
    "everything i say",
    "everything i tell you",
    "everything i type",
    // "what did you think of the movie I mentioned?" asks for an opinion.
    "you think",
    "you like",
    "your opinion",
    "you make of",
    "you feel about",
    // "how do I see what I saved in Google Keep?" asks how to do something.
    "how do i",
    "how can i",
    "how to",
    "where do i",
    "where can i",
    "should i",
    // "Did I mention how much I love this weather?" exclaims.
    "how much i",
    "how much we",
    // "Did I say something wrong in this email?" asks for a judgement.
    "wrong",
    "right",
    "correctly",
    "properly",
    "rude",
];

/// A recall by structure: in one sentence, a question or a look-up addressed to the agent, a
/// word of keeping or telling, and the user or the agent's memory as its source. The trigger's
/// phrase names the words that made it a recall, joined by " … ".
pub(super) fn asked_of_memory(text: &Text<'_>, sentences: &[Span]) -> Option<(usize, Trigger)> {
    // Code and logs name identifiers ("remember_token", `save()`), not memories.
    let orig = text.orig;
    if orig.contains("```") || orig.contains('`') || orig.contains("()") || orig.contains("=>") {
        return None;
    }
    for (k, span) in sentences.iter().enumerate() {
        let next = sentences.get(k + 1).copied();
        if let Some(h) = english(text, *span).or_else(|| japanese(text, *span, next)) {
            return Some(h);
        }
    }
    None
}

/// The English form of [`asked_of_memory`] on one sentence.
fn english(text: &Text<'_>, span: Span) -> Option<(usize, Trigger)> {
    let s = &text.norm;
    let sentence = sl(s, span.start, span.end);
    if !sentence.is_ascii() && sentence.chars().filter(char::is_ascii_alphabetic).count() < 8 {
        return None;
    }
    let ws = words(s, span.start, span.end);
    if ws.is_empty() {
        return None;
    }
    // Songs, films, how memory works, a request for work.
    // Work may follow "and" or "then" in the clause ("check the logs I sent you and summarize
    // them").
    let work =
        clause_heads(text, span).iter().any(|&at| WORK.iter().any(|w| starts_word(&s[at..], w)))
            || WORK.iter().any(|w| {
                ["and", "then"].iter().any(|c| find_word(sentence, &format!("{c} {w}")).is_some())
            });
    // "Check the file I gave you for bugs", "What did the email I sent you say?": material given
    // in this conversation, not memory.
    let material = names_material(sentence);
    if material
        || asks_about_media(sentence)
        || MECHANISM
            .iter()
            .any(|m| find_word(sentence, m).is_some() || m.ends_with('?') && sentence.contains(m))
        || work
    {
        return None;
    }
    let ask = asking(text, span)?;
    // "Look up my saved preferences": the user's kept things, when the agent is told to look.
    let looked_up = LOOKUPS.iter().any(|v| starts_word(sl(s, ask.0, span.end), v));
    let (keep_at, keep_end) = kept_by_user_or_agent(s, &ws)
        .or_else(|| held_for_user(text, s, &ws, looked_up))
        .or_else(|| looked_up.then(|| own_kept(text, s, &ws)).flatten())?;
    if in_quotes(s, keep_at) {
        return None;
    }
    // The topic: what follows "about"/"on"/"regarding" after the keeping words, else the
    // sentence itself.
    let after = sl(s, keep_end, span.end);
    let topic = ["about", "abt", "on", "regarding", "for", "of"]
        .iter()
        .filter_map(|p| find_word(after, p).map(|i| (i, p.len())))
        .min_by_key(|(i, _)| *i)
        .map(|(i, n)| {
            let from = keep_end + i + n;
            let stop = super::clause_end(s, from, span.end);
            strip_topic(strip_question(super::content_to(text, from, stop)))
        })
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| strip_question(text.orig_slice(span.start, span.end).to_owned()));
    let mut parts = vec![ask, (keep_at, keep_end)];
    parts.sort_by_key(|p| p.0);
    parts.dedup_by(|b, a| b.0 < a.1);
    let phrase = parts
        .iter()
        .map(|(a, b)| text.orig_slice(*a, *b))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" … ");
    let at = parts[0].0;
    let (_, mut t) = hit(text, TriggerKind::Recall, at, at, topic);
    t.phrase = phrase;
    Some((at, t))
}

/// Where each clause of a sentence starts, after fillers and requests ("please", "can you").
fn clause_heads(text: &Text<'_>, span: Span) -> Vec<usize> {
    super::clauses(text, span).iter().map(|c| c.start).collect()
}

/// The words that ask: a look-up at a clause start ("pull up", "check your memory"), a question
/// word opening the sentence or a clause, or the question mark. Returns their span.
fn asking(text: &Text<'_>, span: Span) -> Option<(usize, usize)> {
    let s = &text.norm;
    for at in clause_heads(text, span) {
        let rest = sl(s, at, span.end);
        if let Some(v) = LOOKUPS.iter().find(|v| starts_word(rest, v)) {
            return Some((at, at + v.len()));
        }
        // "what I told you yesterday was wrong": a question word straight before "I" opens a
        // relative clause, the subject of a statement.
        if let Some(q) = QUESTION_OPENERS.iter().find(|q| starts_word(rest, q))
            && !["i", "we"].iter().any(|w| starts_word(rest[q.len()..].trim_start(), w))
        {
            return Some((at, at + q.len()));
        }
    }
    let trimmed = sl(s, span.start, span.end).trim_end();
    trimmed.ends_with('?').then(|| {
        let end = span.start + trimmed.len();
        (end - 1, end)
    })
}

/// Finds the keeping or telling words with the user or the agent as who kept them, returning
/// their span: "I told you", "did I mention", "I asked you to keep", "you saved", "your notes",
/// "anything saved about".
fn kept_by_user_or_agent(s: &str, ws: &[Word]) -> Option<(usize, usize)> {
    let lc = |i: usize| ws.get(i).map_or("", |w| sl(s, w.start, w.end));
    let span = |a: usize, b: usize| (ws[a].start, ws[b].end);
    for i in 0..ws.len() {
        let w = lc(i);
        // "I told you", "we decided", "I've saved", "I asked you to keep".
        let subject = matches!(w, "i" | "we" | "i've" | "we've" | "i'd" | "i'm");
        if subject {
            let mut j = i + 1;
            if matches!(w, "i" | "we") && matches!(lc(j), "have" | "had") && user_asked(lc(j + 1)) {
                j += 1;
            }
            while ADVERBS.contains(&lc(j)) {
                j += 1;
            }
            if let Some(end) = user_verb(&lc, j, w.ends_with("'ve") || lc(j - 1) == "have")
                && (addressed(&lc, end) || relative(&lc, i) && !kept_elsewhere(&lc, end))
            {
                return Some(span(i, end));
            }
        }
        // "did I tell you", "have I ever mentioned", "did we note".
        if matches!(w, "did" | "didn't" | "didnt" | "have" | "had")
            && matches!(lc(i + 1), "i" | "we")
        {
            let mut j = i + 2;
            while ADVERBS.contains(&lc(j)) {
                j += 1;
            }
            // "did we agree on the logo?", "have we decided about the venue?"
            if DECIDED.contains(&lc(j))
                && matches!(
                    lc(j + 1),
                    "on" | "about" | "for" | "to" | "what" | "which" | "where" | "when"
                )
            {
                return Some(span(i, j + 1));
            }
            if user_asked(lc(j)) {
                let end = match lc(j) {
                    "tell" | "told" | "give" | "given" => {
                        if lc(j + 1) == "you" {
                            j + 1
                        } else {
                            continue;
                        }
                    }
                    "ask" | "asked" => {
                        if lc(j + 1) == "you" && lc(j + 2) == "to" && KEEP_BASE.contains(&lc(j + 3))
                        {
                            j + 3
                        } else {
                            continue;
                        }
                    }
                    _ => j,
                };
                return Some(span(i, end));
            }
        }
        // "you saved", "you've noted", "you have stored".
        if matches!(w, "you" | "you've") {
            let mut j = i + 1;
            if w == "you" && matches!(lc(j), "have" | "had") {
                j += 1;
            }
            while ADVERBS.contains(&lc(j)) {
                j += 1;
            }
            if AGENT_KEPT.contains(&lc(j)) {
                return Some(span(i, j));
            }
        }
        // "did you save my passport number?", "did you note the gate code?"
        if matches!(w, "did" | "didn't" | "didnt")
            && lc(i + 1) == "you"
            && matches!(lc(i + 2), "save" | "note" | "keep" | "store" | "record" | "log")
        {
            return Some(span(i, i + 2));
        }
        // "anything saved about", "something noted on".
        // "anything saved about", "what's stored about", "is anything noted on"; not "what's
        // recorded on a flight's black box" (a thing in general).
        if matches!(
            w,
            "anything" | "something" | "nothing" | "stuff" | "what's" | "whats" | "is" | "was"
        ) && AGENT_KEPT.contains(&lc(i + 1))
            && matches!(lc(i + 2), "about" | "on" | "regarding" | "for" | "under")
            && !matches!(lc(i + 3), "a" | "an")
        {
            return Some(span(i, i + 1));
        }
    }
    // "in your notes", "your memory"; "on file", "in memory" when asked of the agent.
    let line = &s[ws.first()?.start..ws.last()?.end];
    let to_agent = (0..ws.len()).any(|i| matches!(lc(i), "you" | "anything" | "something"));
    AGENT_PLACES
        .iter()
        .chain(if to_agent { BARE_PLACES } else { &[] })
        .find_map(|p| find_word(line, p).map(|k| (ws[0].start + k, ws[0].start + k + p.len())))
}

/// Tells whether the words up to `end` end with the agent as who was told or asked ("… told
/// you", "… asked you to keep", "… shared with you"), or say it as told ("I said", "I
/// mentioned", not "to my boss"): speech the user addressed to the agent.
fn addressed<'a>(lc: &dyn Fn(usize) -> &'a str, end: usize) -> bool {
    (0..=end).rev().take(3).any(|k| lc(k) == "you")
        || matches!(lc(end), "said" | "mentioned") && (lc(end + 1) != "to" || lc(end + 2) == "you")
}

/// Tells whether the subject at `i` opens a relative clause ("the routine I saved", "what I
/// noted"): a word before it that is not a conjunction. "I saved the spreadsheet but it won't
/// open" opens its own clause: the user kept something themselves, somewhere else.
fn relative<'a>(lc: &dyn Fn(usize) -> &'a str, i: usize) -> bool {
    i > 0
        && !matches!(
            lc(i - 1),
            "but"
                | "and"
                | "so"
                | "because"
                | "when"
                | "if"
                | "since"
                | "after"
                | "before"
                | "as"
                | "then"
                | "think"
                | "know"
                | "guess"
                | "sure"
        )
}

/// Tells whether what the user kept went somewhere other than the agent ("what I saved in Google
/// Keep", "the file I stored to Dropbox").
fn kept_elsewhere<'a>(lc: &dyn Fn(usize) -> &'a str, end: usize) -> bool {
    matches!(lc(end + 1), "in" | "into" | "to" | "at")
        && !matches!(lc(end + 2), "you" | "your" | "memory" | "mind")
}

/// Records the agent holds of the user's things: "Any record of my last tetanus shot?", "Do you
/// have notes about my kid's swim lessons?", "You should have my allergy list somewhere": a record
/// noun after "any"/"have"/"got" and then a topic of the user's own, or "you (should) have my …".
fn held_for_user(text: &Text<'_>, s: &str, ws: &[Word], looked_up: bool) -> Option<(usize, usize)> {
    const RECORDS: &[&str] = &[
        "record",
        "records",
        "note",
        "notes",
        "memory",
        "memories",
        "info",
        "information",
        "details",
    ];
    let lc = |i: usize| ws.get(i).map_or("", |w| sl(s, w.start, w.end));
    for i in 0..ws.len() {
        // "you should have my …", "you've got our …", "you still have my …".
        if matches!(lc(i), "you" | "you've") {
            let mut j = i + 1;
            while matches!(
                lc(j),
                "should" | "must" | "might" | "may" | "probably" | "still" | "already"
            ) {
                j += 1;
            }
            if matches!(lc(j), "have" | "got") && matches!(lc(j + 1), "my" | "our") {
                return Some((ws[i].start, ws[j + 1].end));
            }
        }
        // "any record of my …", "have notes about my …", "what notes do you have on my …";
        // told to look, "bring up my notes about …".
        let held = (1..=2).any(|b| i >= b && matches!(lc(i - b), "any" | "have" | "got" | "there"))
            || looked_up && i >= 1 && matches!(lc(i - 1), "my" | "our");
        let asked_held = lc(i.wrapping_sub(1)) == "what"
            && lc(i + 1) == "do"
            && lc(i + 2) == "you"
            && matches!(lc(i + 3), "have" | "keep");
        if RECORDS.contains(&lc(i)) && (held || asked_held) {
            let p = if asked_held { i + 4 } else { i + 1 };
            if matches!(lc(p), "about" | "abt" | "of" | "on" | "regarding" | "for") {
                let end = ws.last().map_or(s.len(), |w| w.end);
                let topic = super::content_to(text, ws[p].end, end);
                if super::is_personal_topic(&topic) || super::names_known(text, &topic) {
                    return Some((ws[i].start, ws[p].end));
                }
            }
        }
    }
    None
}

/// "my saved preferences", "our stored addresses": what the user kept, named as theirs, unless a
/// device or a program holds it ("my saved Wi-Fi networks on Windows", "… in Firefox").
fn own_kept(text: &Text<'_>, s: &str, ws: &[Word]) -> Option<(usize, usize)> {
    const DEVICES: &[&str] = &[
        "browser", "phone", "computer", "laptop", "pc", "mac", "windows", "iphone", "android",
        "chrome", "firefox", "safari", "edge", "app", "device", "keychain", "account", "cloud",
    ];
    let lc = |i: usize| ws.get(i).map_or("", |w| sl(s, w.start, w.end));
    let held_elsewhere = (0..ws.len()).any(|i| {
        DEVICES.contains(&lc(i))
            || matches!(lc(i), "in" | "on" | "from" | "at")
                && ws.get(i + 1).is_some_and(|w| {
                    text.orig[text.orig_at(w.start)..]
                        .chars()
                        .next()
                        .is_some_and(char::is_uppercase)
                })
    });
    (!held_elsewhere)
        .then(|| {
            (0..ws.len())
                .find(|&i| matches!(lc(i), "my" | "our") && AGENT_KEPT.contains(&lc(i + 1)))
        })
        .flatten()
        .map(|i| (ws[i].start, ws[i + 1].end))
}

/// The verb after "I" that tells or keeps: returns the index of its last word. `perfect` is set
/// after "I've"/"I have", where the participle follows.
fn user_verb<'a>(lc: &dyn Fn(usize) -> &'a str, j: usize, perfect: bool) -> Option<usize> {
    let v = lc(j);
    let v = if perfect {
        match v {
            "given" => "gave",
            "written" => "wrote",
            other => other,
        }
    } else {
        v
    };
    if !USER_PAST.contains(&v) {
        return None;
    }
    match v {
        // "I told you" (not "I told my boss"); "I gave you".
        "told" | "gave" => (lc(j + 1) == "you").then_some(j + 1),
        // "I shared with you", "I sent you".
        "shared" | "sent" => match lc(j + 1) {
            "you" => Some(j + 1),
            "with" if lc(j + 2) == "you" => Some(j + 2),
            _ => None,
        },
        // "I asked you to keep", "I had you save".
        "asked" => (lc(j + 1) == "you" && lc(j + 2) == "to" && KEEP_BASE.contains(&lc(j + 3)))
            .then_some(j + 3),
        "had" => (lc(j + 1) == "you" && KEEP_BASE.contains(&lc(j + 2))).then_some(j + 2),
        // "I wrote down", "I put in your notes", "I added to memory": where it went must be
        // the agent's.
        "wrote" | "put" | "added" => None,
        _ => Some(j),
    }
}

// ---------------------------------------------------------------------------------------------
// Japanese

/// Keeping stems: what the agent was asked to keep, as a noun or the stem of a verb.
const JA_KEEP_STEMS: &[&str] = &["保存", "記録", "メモ", "記憶", "控え"];

/// What may follow a keeping stem to say it was kept and still is (保存してある, メモって残ってる,
/// 記録ある, 覚えてもらった): the agent's store, whoever put it there.
const JA_KEPT_STATE: &[&str] = &[
    // 保存したはずの…: kept, as the user believes.
    "したはず",
    // 記憶してる？, 保存してたレシピ: kept, and still there.
    "してる",
    "してた",
    "してます",
    "していますか",
    // メモを見て, 記録を確認して: look in what was kept.
    "を見て",
    "見て",
    "を確認して",
    "を調べて",
    "から探して",
    "してある",
    "してあった",
    "してあります",
    "してありますか",
    "ってある",
    "って残って",
    "が残って",
    "は残って",
    "に残って",
    "残って",
    "ある",
    "あった",
    "あります",
    "してもらった",
    "しておいてもらった",
    "してもらっ",
    "してくれた",
    "してくれて",
    "させた",
    "にある",
];

/// Past forms of keeping by the user (保存した, メモしておいた): kept, but only a word of the
/// past (前に, 以前) or the user (私が) makes it the agent's store and not a file on a disk.
const JA_KEPT_PAST: &[&str] = &["した", "しておいた", "しといた", "させた"];

/// Keeping asked of the agent, said whole (覚えてもらってた, 覚えさせた): kept, whoever asked.
const JA_KEPT_WHOLE: &[&str] =
    &["覚えてもらってた", "覚えてもらった", "覚えておいてもらった", "覚えさせた", "覚えさせてた"];

/// Verbs of telling: the user told the agent (前に言った, 以前お願いした, この前伝えた).
const JA_TOLD: &[&str] = &[
    "言った",
    "言ってた",
    "言ってたっけ",
    "伝えた",
    "伝えてた",
    "話した",
    "話してた",
    "教えた",
    "お願いした",
    "頼んだ",
    "決めた",
    "覚えさせた",
    "覚えてもらった",
];

/// Words that make the user (or earlier talk with the agent) the source.
const JA_SOURCE: &[&str] = &[
    "私",
    "僕",
    "俺",
    "わたし",
    "自分",
    "前に",
    "以前",
    "この前",
    "こないだ",
    "この間",
    "前回",
    "さっき",
    "あなたに",
    "君に",
];

/// Endings and requests that ask the agent: 教えて, 見せて, 出して, 探して; or a question mark.
const JA_ASKS: &[&str] = &[
    "教えて",
    "見せて",
    "出して",
    "探して",
    "一覧にして",
    "リストにして",
    "確認して",
    // 確認したい, 知りたい: the user's wish to see it asks too.
    "確認したい",
    "知りたい",
    "見たい",
];

/// Topics that are not the user's memory, how memory works, files and code, or work.
const JA_GUARDS: &[&str] = &[
    "歌",
    "曲",
    "映画",
    "アニメ",
    "小説",
    "ドラマ",
    "タイトル",
    "仕組み",
    "どうやって",
    "されて",
    "される",
    "どこかに",
    "ファイル",
    "コード",
    "スクリプト",
    "アプリ",
    "クラウド",
    "写真",
    "ボタン",
    "エクセル",
    "excel",
    "ブラウザ",
    "chrome",
    "書いて",
    "作って",
    "要約",
    "翻訳",
    "直して",
    "記録的",
    "言われ",
];

/// Questions that ask how to do something, for an opinion or for a judgement, whatever they
/// mention: 前回保存したバージョンに戻すにはどうすればいい？, 私が話したことについてどう思う？,
/// 私が言ったことって失礼だった？
const JA_NOT_RECALL: &[&str] = &[
    // 前に話した件、進んでる？ asks how a task stands.
    "進んでる",
    "進んで",
    "できた",
    "終わった",
    "どうなった",
    "意味",
    "どうすれば",
    "どうしたら",
    "すればいい",
    "したらいい",
    // どう思う？ asks an opinion; …と思うんだけど only hedges (round 10).
    "どう思う",
    "思う？",
    "思う?",
    "思わない",
    "失礼",
    "間違",
    "正しい",
    "大丈夫",
    "おかしい",
    "よかった",
    "良かった",
];

/// Tells whether a Japanese sentence asks how to do something, for an opinion or a judgement.
pub(super) fn ja_asks_other(s: &str) -> bool {
    JA_NOT_RECALL.iter().any(|w| s.contains(w))
}

/// Words that ask for what was told, not whether a request is done (以前お願いした資料、もうできた？):
/// a question word, a request to say or show it, or …っけ.
const JA_WHAT: &[&str] = &[
    "何",
    "なに",
    "なん",
    "いつ",
    "どこ",
    "誰",
    "だれ",
    "どれ",
    "どんな",
    "どう",
    "っけ",
    "教えて",
    "見せて",
    "出して",
    "探して",
    "覚えて",
    "確認して",
    "確認したい",
    "知りたい",
    "一覧",
];

/// The Japanese form of [`asked_of_memory`] on one sentence; `next` may carry the request
/// (…保存してある？教えて。) or the topic (メモって残ってる？BigQueryのプロジェクトIDのやつ。).
fn japanese(text: &Text<'_>, span: Span, next: Option<Span>) -> Option<(usize, Trigger)> {
    let s = sl(&text.norm, span.start, span.end);
    if !s.chars().any(|c| matches!(c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF)) {
        return None;
    }
    let whole = sl(&text.norm, span.start, next.map_or(span.end, |n| n.end));
    if JA_GUARDS.iter().any(|g| whole.contains(g)) || ja_asks_other(whole) {
        return None;
    }
    let body = s.trim_end().trim_end_matches(['。', ' ']);
    let question = body.ends_with(['？', '?']);
    let ask_word = JA_ASKS.iter().find_map(|a| s.find(a).map(|i| (i, a.len())));
    let next_asks = next.is_some_and(|n| {
        let t = sl(&text.norm, n.start, n.end);
        JA_ASKS.iter().any(|a| t.starts_with(a))
    });
    // 記録ある / メモ残ってる without a question mark still ask when they end the sentence.
    if !question && ask_word.is_none() && !next_asks {
        return None;
    }
    let source = JA_SOURCE.iter().find_map(|w| s.find(w).map(|i| (i, w.len())));
    // A keeping stem and what follows it.
    let kept = JA_KEEP_STEMS.iter().find_map(|stem| {
        let i = s.find(stem)?;
        // あなたはどこに保存してるの？ asks how the agent keeps things.
        if s[..i].ends_with("どこに") {
            return None;
        }
        let mut rest = &s[i + stem.len()..];
        for p in ["って", "は", "が", "、", "も", "とか"] {
            if let Some(r) = rest.strip_prefix(p) {
                rest = r;
                break;
            }
        }
        let state =
            JA_KEPT_STATE.iter().filter(|st| rest.starts_with(*st)).max_by_key(|st| st.len());
        let past = JA_KEPT_PAST.iter().filter(|st| rest.starts_with(*st)).max_by_key(|st| st.len());
        let end = i + (s.len() - i - stem.len() - rest.len()) + stem.len();
        match (state, past) {
            (Some(st), _) => Some((i, end + st.len())),
            (None, Some(p)) if source.is_some() => Some((i, end + p.len())),
            _ => None,
        }
    });
    let told = || {
        source?;
        if !JA_WHAT.iter().any(|w| whole.contains(w)) {
            return None;
        }
        let (i, v) = JA_TOLD.iter().find_map(|v| s.find(v).map(|i| (i, v.len())))?;
        // 先生が前に言ってた: someone else told it; 私が前に話した is the user.
        let other = s[..i].find('が').is_some_and(|g| {
            !["私", "僕", "俺", "自分", "わたし"].iter().any(|me| s[..g].ends_with(me))
        });
        (!other).then_some((i, i + v))
    };
    // 車検のこと、何か残ってる？: anything left, of a topic, with no keeping word said (冷蔵庫に
    // 何か残ってる？ asks about a place).
    let left = || {
        let i = s.find("何か残って")?;
        (!s[..i].ends_with(['に', 'で'])).then_some((i, i + "何か残って".len()))
    };
    let whole_kept = || JA_KEPT_WHOLE.iter().find_map(|v| s.find(v).map(|i| (i, i + v.len())));
    let (k, kend) = kept.or_else(whole_kept).or_else(told).or_else(left)?;
    if in_quotes(&text.norm, span.start + k) {
        return None;
    }
    // The topic: the words before the keeping ones, else after them, else the next sentence.
    let before =
        ja_topic(text.orig_slice(span.start, span.start + source.map_or(k, |(i, _)| i.min(k))));
    let after_end = ask_word.map_or(span.end, |(i, _)| span.start + i);
    let after = if span.start + kend < after_end {
        ja_topic(text.orig_slice(span.start + kend, after_end))
    } else {
        String::new()
    };
    let topic = [before, after]
        .into_iter()
        .filter(|t| !t.is_empty())
        .max_by_key(|t| t.chars().count())
        .or_else(|| {
            next.map(|n| ja_topic(text.orig_slice(n.start, n.end))).filter(|t| !t.is_empty())
        })
        .unwrap_or_default();
    let mut parts: Vec<(usize, usize)> = vec![(k, kend)];
    if let Some((i, n)) = source {
        parts.push((i, i + n));
    }
    if let Some((i, n)) = ask_word {
        parts.push((i, i + n));
    }
    parts.sort_by_key(|p| p.0);
    parts.dedup_by(|b, a| b.0 < a.1);
    let at = span.start + parts[0].0;
    let phrase = parts
        .iter()
        .map(|(a, b)| text.orig_slice(span.start + a, span.start + b))
        .collect::<Vec<_>>()
        .join(" … ");
    let (_, mut t) = hit(text, TriggerKind::Recall, at, at, topic);
    t.phrase = if question && ask_word.is_none() { format!("{phrase}？") } else { phrase };
    Some((at, t))
}

/// A Japanese topic: the object words of a question, particles and question words trimmed.
fn ja_topic(s: &str) -> String {
    let mut t = s.trim().trim_end_matches(['？', '?', '。', '、', ' ']).to_owned();
    for _ in 0..3 {
        let before = t.clone();
        for w in
            ["何か", "何が", "何を", "なにか", "って何", "のやつ", "やつ", "のこと", "こと", "って"]
        {
            if let Some(r) = t.strip_suffix(w) {
                t = r.trim_end_matches(['、', ' ']).to_owned();
            }
        }
        t = ja_trim_object(&t);
        if t == before {
            break;
        }
    }
    trim_content(&t)
}

/// Japanese keeping verbs that, with a colon after them, ask to keep what follows: 保存して：…,
/// 永久に保存して：…, 絶対に消えないようにして：…, 残しておいて：….
const JA_KEEP_REQUESTS: &[&str] = &[
    "保存",
    "保管",
    "残し",
    "残して",
    "消えないように",
    "消さないで",
    "忘れないように",
    "忘れないで",
    "記録",
    "メモ",
    "記憶",
    "控え",
    "覚え",
    "固定",
    "ピン留め",
    "金庫",
];

/// Request endings before the colon.
const JA_REQUEST_ENDS: &[&str] = &[
    "して",
    "しておいて",
    "しといて",
    "して下さい",
    "してください",
    "してね",
    "しておいてね",
    "しておいてください",
    "ておいて",
    "といて",
    "て",
    "で",
    "でお願い",
    "お願い",
    "お願いします",
];

/// Heads before the colon that keep a file, not a memory.
const JA_FILE_WORDS: &[&str] =
    &["ファイル", "フォルダ", "ディスク", "クラウド", "ドライブ", "名前を付けて", ".md", ".txt"];

/// A Japanese request that opens with a keeping verb and a colon: 保存して：…, 永久に保存して：…,
/// 大事なことだから絶対に消えないようにして：…. What follows the colon is what to keep; the head,
/// with its words of keeping for good, is the phrase, which routing reads (永久 → the vault).
pub(super) fn ja_keep_opener(text: &Text<'_>, sentences: &[Span]) -> Option<(usize, Trigger)> {
    let first = sentences.first()?;
    let s = sl(&text.norm, first.start, first.end);
    // The head ends at a colon; or, when it is nothing but the keeping request (保存して、…,
    // 保存して⏎…), at a comma or the end of the first sentence.
    let (colon, bare) = match s.find(':') {
        Some(c) => (c, false),
        None => (s.find('、').unwrap_or_else(|| s.trim_end().len()), true),
    };
    let head = s[..colon].trim_end().trim_end_matches('。');
    if head.is_empty() || head.chars().count() > 30 || head.contains(['。', '\n', '!', '?']) {
        return None;
    }
    if !head.chars().any(|c| matches!(c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF)) {
        return None;
    }
    let head_body = head.trim_end_matches(['ね', 'よ', '！', ' ']);
    if !JA_REQUEST_ENDS.iter().any(|e| head_body.ends_with(e)) {
        return None;
    }
    let (k, stem) = JA_KEEP_REQUESTS.iter().find_map(|w| head.find(w).map(|i| (i, *w)))?;
    if JA_FILE_WORDS.iter().any(|w| head.contains(w)) || in_quotes(&text.norm, first.start + k) {
        return None;
    }
    // The verb must be the head's last request: 保存して：, not 保存したファイルを開いて： or
    // このメモを要約して：.
    let verb_tail = &head[k + stem.len()..];
    if verb_tail.chars().count() > 8 || verb_tail.contains(['を', 'が', 'は', 'の']) {
        return None;
    }
    // Bare, nothing may stand before the verb but words of keeping for good: ファイルを保存して、
    // … saves a file.
    let lead = ja_strip_openers(&head[..k]);
    let lead = lead.trim_start_matches("これ").trim_start_matches(['、', ' ']);
    if bare && !(lead.is_empty() || JA_KEEP_FOR_GOOD.iter().any(|w| lead.ends_with(w))) {
        return None;
    }
    let after = first.start + colon + s[colon..].chars().next().map_or(0, char::len_utf8);
    let content = super::content_after(text, after);
    // 保存して：（ファイル名は report.md） names a file to save.
    if content.contains("ファイル名") || bare && super::ja_requests(&content) {
        return None;
    }
    // 保存して：この文章を英語に翻訳して asks for work on the text, not to keep it.
    let ask = content.trim_end_matches(['。', '！', '!', ' ', 'ね']);
    let ask = ask.strip_suffix("ください").unwrap_or(ask);
    if content.is_empty()
        || ["翻訳して", "要約して", "書いて", "作って", "直して"].iter().any(|w| ask.ends_with(w))
    {
        return None;
    }
    // The phrase starts at the head's words of keeping for good (永久に, 絶対に, ずっと) or the
    // clause of the verb, after a reason (大事なことだから、…).
    let mut from = head[..k]
        .rfind(['、', ','])
        .map_or(0, |i| i + head[i..].chars().next().map_or(1, char::len_utf8));
    for r in ["だから", "なので", "ので", "から"] {
        if let Some(i) = head[from..k].rfind(r) {
            from += i + r.len();
        }
    }
    let start = first.start + from;
    let end = first.start + colon;
    let (_, mut t) = hit(text, TriggerKind::Remember, start, end, content);
    t.phrase = text.orig_slice(start, end).to_owned();
    Some((start, t))
}

#[cfg(test)]
mod tests {
    use super::super::{ExtraPhrases, classify};
    use super::*;

    fn recall(m: &str) -> Option<String> {
        classify(m, &ExtraPhrases::default())
            .filter(|t| t.kind == TriggerKind::Recall)
            .map(|t| t.phrase)
    }

    #[test]
    fn a_question_a_keeping_word_and_a_source_make_a_recall() {
        for m in [
            "Can you look up what I told you about the Postgres settings last week?",
            "Is there anything saved about my passport renewal?",
            "Pull up the notes I asked you to keep on orchid care.",
            "You saved something about the grant deadline, what was it?",
            "私の車について何か保存してある？教えて。",
            "以前お願いしたルールって何があったか教えて。",
            "この前メモしてもらったデプロイ手順、見せて。",
            "電気代のこと、何か記録残ってる？",
            // Other combinations of the same three parts.
            "Show me what you've saved on my mortgage.",
            "dig up what I shared with you about the Q3 budget",
            "Is my passport number in your memory?",
            "Got anything noted about the Henderson invoice?",
            "I think I told you my cousin's wedding date, when is it?",
            "さっき伝えたホテルの名前を出して",
            "母の誕生日って保存してある？",
            "Any record of my last tetanus shot?",
            "Do you have notes about my kid's swim lessons?",
            "So what did we agree on for the logo?",
            "You should have my allergy list somewhere, what's on it?",
            "Look up my saved preferences for hotel rooms.",
            "記憶してる？母の電話番号",
            "メモを見て、歯医者の予約日を教えて",
            "保存してたレシピ、もう一回見せて",
            "What's stored about the Barcelona conference?",
            "Is there a note about my cat's vaccination dates?",
            "What's the gate code I gave you?",
            "Do you have my gym schedule on file?",
            "What's the email address I gave you for my landlord?",
            "前回お願いしたメモの内容を確認したい",
            "保存したはずの会議のメモ、どこにある？",
            "何か残ってる？車の車検のこと",
            "この前言った映画館の場所、覚えてる？",
            "私が以前決めたルール、一覧にして",
            "覚えてもらってた家族の誕生日、全部教えて",
            "what notes do you have on my allergies?",
            "Bring up my notes about the Tokyo trip.",
            "wat did i tell you abt my sisters bday",
            "did u save my passport number?",
            "any notes abt my landlord?",
            "Didn't I tell you where the spare key is?",
        ] {
            assert!(recall(m).is_some(), "{m}");
        }
    }

    #[test]
    fn the_phrase_names_the_words_that_made_it_a_recall() {
        let p = recall("Can you look up what I told you about the Postgres settings?");
        assert_eq!(p.as_deref(), Some("look up … I told you"));
        let p = recall("以前保存したRedisのホスト名を教えてください。");
        assert_eq!(p.as_deref(), Some("以前 … 保存した … 教えて"));
    }

    #[test]
    fn songs_code_work_and_the_users_own_memory_stay_ordinary() {
        for m in [
            "I can't remember the command to list open ports on a Mac, what is it?",
            "Why does Chrome keep forgetting my saved passwords?",
            "How does your memory feature actually work? Do you store everything I say?",
            "Can you summarize my notes from the PDF I uploaded into five bullets?",
            "Who sang the song I mentioned, the one about September?",
            "I told my boss about the outage, what should I say next?",
            "Excelで保存したファイルが開けなくなったんだけど、どうすればいい？",
            "AIチャットの会話って、どこかに保存されてるの？",
            "「忘れないで」っていうタイトルの歌、誰が歌ってたっけ？",
            "fix this function: def save_note(text): open('notes.txt').write(text)",
            // The user kept it themselves, elsewhere; a how-to; work; a judgement; an opinion.
            "I saved the spreadsheet but it won't open, can you help?",
            "How do I see what I saved in Google Keep?",
            "Check the logs I sent you for errors and summarize them.",
            "Did I say something wrong in this email? Here it is: thanks for nothing.",
            "what did you think of the movie I mentioned?",
            "what's the best way to store data in memory?",
            "what I told you yesterday was wrong, sorry",
            "Did I mention how much I love this weather? So nice today!",
            "私が言ったことって失礼だった？",
            "私が話したことについてどう思う？",
            "以前お願いした資料、もうできた？",
            "前回保存したバージョンに戻すにはどうすればいい？",
            "先生が前に言ってたこと、どういう意味？",
            "前に話した件、進んでる？",
            "冷蔵庫に何か残ってる？",
            "What did I just say? lol",
            "What's recorded on a flight's black box?",
            "What did the email I sent you say about refunds? Summarize it.",
            "Check the file I gave you for bugs.",
            "Did I send the invoice? I can't remember. How do I check in QuickBooks?",
            "What's saved in the browser cache?",
            "あなたはどうやって記憶してるの？",
            "Did we go to the moon in 1969?",
            "Any notes on how to structure a cover letter?",
            "Can you show me my saved Wi-Fi networks on Windows?",
        ] {
            assert_eq!(recall(m), None, "{m}");
        }
    }

    #[test]
    fn a_keeping_verb_and_a_colon_open_a_remember_request() {
        for (m, content) in [
            (
                "保存して：マンションの宅配ボックスの暗証番号は玄関の引き出しのメモに書いてある。",
                "マンションの宅配ボックスの暗証番号は玄関の引き出しのメモに書いてある",
            ),
            (
                "重要なので永久に保存して：家の住所は誰にも共有しないこと。",
                "家の住所は誰にも共有しないこと",
            ),
            (
                "大事なことだから絶対に消えないようにして：薬の飲み合わせは薬剤師に確認すること。",
                "薬の飲み合わせは薬剤師に確認すること",
            ),
        ] {
            let t = classify(m, &ExtraPhrases::default()).expect(m);
            assert_eq!(t.kind, TriggerKind::Remember, "{m}");
            assert_eq!(t.content.trim_end_matches('。'), content, "{m}");
        }
        let t = classify(
            "重要なので永久に保存して：家の住所は誰にも共有しないこと。",
            &ExtraPhrases::default(),
        );
        assert_eq!(t.map(|t| t.phrase).as_deref(), Some("永久に保存して"));
        // A file is saved, not remembered; text to work on is not kept.
        for m in [
            "保存して：この文章を英語に翻訳して",
            "このメモを要約して：会議は三時から",
            "保存して：（ファイル名は report.md）",
            "ファイルを保存して、それから閉じて",
        ] {
            assert_eq!(classify(m, &ExtraPhrases::default()).map(|t| t.kind), None, "{m}");
        }
        // Nothing but the request before a comma or a line break opens the content too.
        for m in ["保存して、父の誕生日は5月3日", "保存して\n父の誕生日は5月3日"]
        {
            let t = classify(m, &ExtraPhrases::default()).expect(m);
            assert_eq!((t.kind, t.content.as_str()), (TriggerKind::Remember, "父の誕生日は5月3日"));
        }
        assert_eq!(
            classify("ファイルに保存して：notes.md", &ExtraPhrases::default()).map(|t| t.kind),
            None
        );
    }
}
